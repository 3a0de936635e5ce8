#pragma once
// GPUREC_HD marks functions that nvcc compiles for both the host and the device; in plain C++
// builds it expands to nothing, so the same header serves the CPU engine and the CUDA kernels.
#ifdef __CUDACC__
#define GPUREC_HD __host__ __device__
#else
#define GPUREC_HD
#endif
