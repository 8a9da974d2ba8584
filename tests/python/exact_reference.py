# The exact sum of floats rounded once to nearest even into a floating format: the reference that
# exact=True results must equal bit for bit.
import math
from fractions import Fraction

# (precision in bits, smallest normal exponent, largest exponent) per format.
FORMATS = {"float64": (53, -1022, 1023), "float32": (24, -126, 127), "float16": (11, -14, 15),
           "bfloat16": (8, -126, 127)}


def exact_sum(values, fmt):
    """values: Python floats (the inputs, exactly); the correctly rounded sum as a Python float."""
    if any(math.isnan(v) for v in values):
        return math.nan
    infs = {v for v in values if math.isinf(v)}
    if infs:
        return math.nan if len(infs) == 2 else infs.pop()
    s = sum((Fraction(v) for v in values), Fraction(0))
    if s == 0:
        return -0.0 if values and all(v == 0 and math.copysign(1, v) < 0 for v in values) else 0.0
    p, emin, emax = FORMATS[fmt]
    a = abs(s)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - p + 1)
    m = round(a / ulp)  # Fraction rounds half to even
    r = m * ulp
    if r >= Fraction(2) ** (emax + 1):
        return math.copysign(math.inf, s)
    return math.copysign(float(r), s)
