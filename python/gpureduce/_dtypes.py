"""Element types: the extension's codes, their names and sizes, and the result-type rules."""

# The extension's DType codes (python/src/call.hpp), by NumPy-style name.
CODES = {
    "bool": 0, "int8": 1, "uint8": 2, "int16": 3, "uint16": 4, "int32": 5, "uint32": 6,
    "int64": 7, "uint64": 8, "float16": 9, "bfloat16": 10, "float32": 11, "float64": 12,
}
NAMES = {code: name for name, code in CODES.items()}
ITEMSIZE = {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 8, 8: 8, 9: 2, 10: 2, 11: 4, 12: 8}
FLOATING = frozenset((9, 10, 11, 12))
NO_ACC = 13  # DType::count: the library's own accumulator

BOOL, INT64, UINT64, FLOAT32, FLOAT64 = 0, 7, 8, 11, 12

# __cuda_array_interface__ type strings (little-endian; '|' for one byte).
TYPESTR = {
    "|b1": 0, "|i1": 1, "|u1": 2, "<i2": 3, "<u2": 4, "<i4": 5, "<u4": 6,
    "<i8": 7, "<u8": 8, "<f2": 9, "<f4": 11, "<f8": 12,
}
# DLPack (type code, bits): kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6.
DLPACK = {
    (6, 8): 0, (1, 1): 0, (0, 8): 1, (1, 8): 2, (0, 16): 3, (1, 16): 4, (0, 32): 5, (1, 32): 6,
    (0, 64): 7, (1, 64): 8, (2, 16): 9, (4, 16): 10, (2, 32): 11, (2, 64): 12,
}


def sum_result(code):
    """The type of a sum or product without dtype= (PyTorch's rule): bool and integers of up to 32
    bits give int64 (uint8 too); uint16, uint32 and uint64 give uint64 (NumPy's rule: PyTorch has
    none); floating types keep theirs (16-bit floats are accumulated in float32)."""
    if code in FLOATING or code == INT64:
        return code
    if code in (4, 6, 8):
        return UINT64
    return INT64


def mean_accumulator(code):
    """mean's accumulator: float64 for float64, float32 for the other floating types."""
    return FLOAT64 if code == FLOAT64 else FLOAT32
