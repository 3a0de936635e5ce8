#pragma once
// The device team of team_sweeps.hpp: one thread block per clade (or parameter set). Reductions
// are warp butterflies, then one value per warp through shared memory; every thread reads the same
// per-warp values in the same order, so the result is deterministic for a given block size.
#include "team_sweeps.hpp"

namespace gpurec::gpu {

struct BlockTeam {
    // Up to three values per warp of a team of at most 256 threads: small, so that the team's
    // shared memory stays a whole number of clades per multiprocessor.
    static constexpr int kReductionDoubles = 3 * 8;
    int rank, size;
    double* reduction; // kReductionDoubles of shared memory

    __device__ explicit BlockTeam(double* scratch)
        : rank(threadIdx.x), size(blockDim.x), reduction(scratch) {}
    __device__ void sync() const { __syncthreads(); }

    template <int N, class Op> __device__ void reduce(double (&v)[N], Op op) const {
        for (int i = 0; i < N; ++i)
            for (int offset = 16; offset > 0; offset >>= 1)
                v[i] = op(v[i], __shfl_xor_sync(0xffffffffu, v[i], offset));
        const int warp = rank >> 5, warps = size >> 5;
        if ((rank & 31) == 0)
            for (int i = 0; i < N; ++i)
                reduction[warp * N + i] = v[i];
        __syncthreads();
        for (int i = 0; i < N; ++i) {
            double r = reduction[i];
            for (int w = 1; w < warps; ++w)
                r = op(r, reduction[w * N + i]);
            v[i] = r;
        }
        __syncthreads();
    }
    struct Max {
        __device__ double operator()(double a, double b) const { return maxOf(a, b); }
    };
    struct Sum {
        __device__ double operator()(double a, double b) const { return a + b; }
    };
    __device__ double max(double v) const {
        double a[1] = {v};
        reduce(a, Max{});
        return a[0];
    }
    __device__ double sum(double v) const {
        double a[1] = {v};
        reduce(a, Sum{});
        return a[0];
    }
    __device__ void max2(double& x, double& y) const {
        double a[2] = {x, y};
        reduce(a, Max{});
        x = a[0];
        y = a[1];
    }
    __device__ void raiseMax(double* address, double v) const {
        // Non-negative doubles order like their bit patterns.
        atomicMax(reinterpret_cast<unsigned long long*>(address),
                  static_cast<unsigned long long>(__double_as_longlong(v)));
    }
    __device__ void sum3(double& x, double& y, double& z) const {
        double a[3] = {x, y, z};
        reduce(a, Sum{});
        x = a[0];
        y = a[1];
        z = a[2];
    }
};

} // namespace gpurec::gpu
