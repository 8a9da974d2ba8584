# gpureduce::nccl (gpureduce/nccl.cuh): the library's headers and NCCL, found in NCCL_ROOT, the CUDA
# toolkit, or the nvidia-nccl wheel of the Python that CMake finds. Defined only where NCCL is.
if(NOT TARGET gpureduce::nccl)
  set(_gpureduce_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))"
      OUTPUT_VARIABLE _gpureduce_nccl_wheel OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND _gpureduce_nccl_hints ${_gpureduce_nccl_wheel})
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${_gpureduce_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${_gpureduce_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
    PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    add_library(gpureduce::nccl INTERFACE IMPORTED)
    target_include_directories(gpureduce::nccl INTERFACE ${NCCL_INCLUDE_DIR})
    target_link_libraries(gpureduce::nccl INTERFACE gpureduce::gpureduce ${NCCL_LIBRARY})
  endif()
endif()
