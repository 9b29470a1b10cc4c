// BLOOMSEQ_HD marks functions that run on both the host and a CUDA device.
// Everything under this macro is C++17, allocation-free, exception-free and iostream-free,
// so the CPU backend, the tests and the CUDA kernels all execute the very same code.
#pragma once

#if defined(__CUDACC__)
#define BLOOMSEQ_HD __host__ __device__ __forceinline__
#define BLOOMSEQ_DEVICE_CODE 1
#else
#define BLOOMSEQ_HD inline
#endif

// Loops over a compile-time bound of hash functions are unrolled on the device so the hashes stay in registers.
#if defined(__CUDA_ARCH__)
#define BLOOMSEQ_UNROLL _Pragma("unroll")
#else
#define BLOOMSEQ_UNROLL
#endif
