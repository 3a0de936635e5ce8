#pragma once
// CUDA error checking and owned device allocations with a running byte count.
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurec::gpu {

// A CUDA call or kernel failed; the message names the step and the CUDA error.
class CudaError : public std::runtime_error {
  public:
    CudaError(const std::string& step, cudaError_t code)
        : std::runtime_error("CUDA error during " + step + ": " + cudaGetErrorString(code) + " (" +
                             cudaGetErrorName(code) + ")"),
          code_(code) {}
    cudaError_t code() const { return code_; }
    bool outOfMemory() const { return code_ == cudaErrorMemoryAllocation; }

  private:
    cudaError_t code_;
};

inline void check(cudaError_t code, const char* step) {
    if (code != cudaSuccess) {
        if (code == cudaErrorMemoryAllocation) cudaGetLastError(); // clear the sticky-free error state
        throw CudaError(step, code);
    }
}

// Launch errors are reported by cudaGetLastError, execution errors at the next synchronisation.
inline void checkLaunch(const char* kernel) {
    check(cudaGetLastError(), kernel);
}

struct MemoryCounter {
    double current = 0, peak = 0;
    void add(double bytes) {
        current += bytes;
        if (current > peak) peak = current;
    }
};

template <class T> class DeviceArray {
  public:
    DeviceArray() = default;
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    DeviceArray(DeviceArray&& o) noexcept { *this = std::move(o); }
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = o.ptr_;
            size_ = o.size_;
            capacity_ = o.capacity_;
            counter_ = o.counter_;
            o.ptr_ = nullptr;
            o.size_ = o.capacity_ = 0;
        }
        return *this;
    }
    ~DeviceArray() { release(); }

    void allocate(std::size_t count, MemoryCounter& counter, const char* what) {
        release();
        if (count == 0) return;
        check(cudaMalloc(&ptr_, count * sizeof(T)), what);
        size_ = capacity_ = count;
        counter_ = &counter;
        counter.add(static_cast<double>(bytes()));
    }
    // Keeps the allocation when host fits it (a species tree replaced by another): cudaFree waits
    // for the whole device, so a reallocation would stall the other backends' streams (the
    // species-tree search's screening lanes).
    void upload(const std::vector<T>& host, MemoryCounter& counter, const char* what) {
        if (host.size() > capacity_ || counter_ != &counter) allocate(host.size(), counter, what);
        size_ = host.size();
        if (!host.empty()) check(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice), what);
    }
    void release() {
        if (ptr_) {
            cudaFree(ptr_);
            if (counter_) counter_->current -= static_cast<double>(capacity_ * sizeof(T));
        }
        ptr_ = nullptr;
        size_ = capacity_ = 0;
    }
    T* get() const { return ptr_; }
    std::size_t size() const { return size_; }
    std::size_t bytes() const { return size_ * sizeof(T); }

  private:
    T* ptr_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0; // capacity_: the allocation's elements
    MemoryCounter* counter_ = nullptr;
};

// A pinned host buffer, grown when asked for more and kept: read back into pageable memory, results
// go through the driver's staging and fault fresh pages in on every evaluation (4 MB of a
// 500-species gradient's chunk rows took 6 ms of host time that way).
template <class T> class PinnedHostArray {
  public:
    PinnedHostArray() = default;
    PinnedHostArray(const PinnedHostArray&) = delete;
    PinnedHostArray& operator=(const PinnedHostArray&) = delete;
    ~PinnedHostArray() { release(); }
    // At least `count` elements (their values undefined).
    T* reserve(std::size_t count, const char* what) {
        if (count > capacity_) {
            release();
            void* fresh = nullptr;
            check(cudaMallocHost(&fresh, count * sizeof(T)), what);
            ptr_ = static_cast<T*>(fresh);
            capacity_ = count;
        }
        return ptr_;
    }

  private:
    void release() {
        if (ptr_) cudaFreeHost(ptr_);
        ptr_ = nullptr;
        capacity_ = 0;
    }
    T* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

} // namespace gpurec::gpu
