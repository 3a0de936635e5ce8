#pragma once
// The CUDA backend: the LikelihoodBackend of core/engine/backend.hpp on one NVIDIA GPU, double
// precision, with the CPU reference's mathematics (see docs/performance.md for the design).
// Plain C++ interface: callers need no CUDA headers.
#include "engine/backend.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

// Usable CUDA devices; 0 when there is no driver or no device (never throws).
int cudaDeviceCount();
// "cuda:0 NVIDIA H200 (139.8 GiB)" per usable device.
std::vector<std::string> cudaDeviceDescriptions();

// Throws std::runtime_error with a clear message when the device cannot be used or the dataset cannot
// be planned within the memory limit.
std::unique_ptr<LikelihoodBackend> makeCudaBackend(std::shared_ptr<const Dataset> data, int device,
                                                   const BatchLimits& limits);

enum class EvaluationPhase { Extinction, Forward, Adjoint, Gradient };
constexpr int kEvaluationPhases = 4;
const char* toString(EvaluationPhase phase); // "extinction", "forward", ...

// What the last evaluate() did on the device, for `gpurec check` and `gpurec bench`.

struct CudaRunInfo {
    std::string device;
    double deviceSeconds = 0; // CUDA events around the whole evaluation
    // Per phase: E and the sweep coefficients; forward waves and likelihoods; adjoint waves;
    // gradient gathering and reduction (with the host's E elimination in the shared modes).
    std::array<double, kEvaluationPhases> phaseSeconds{};
    // With wave profiling on: device seconds of every forward and adjoint wave of every batch.
    struct WaveTime {
        EvaluationPhase phase;
        int batch, wave, clades;
        double seconds;
    };
    std::vector<WaveTime> waves;
    int cladesInFlight = 0; // clades the device runs at once (teams per multiprocessor × multiprocessors)
    double peakBytes = 0;   // device memory held by the backend at its peak
    double budgetBytes = 0; // the memory limit the plan was made for
    int batches = 0;
    long long unwrittenEntries = -1; // poisoned table entries left unwritten (−1: poisoning off)
    double tableBytesMoved = 0;      // Π/Π̄/adjoint row traffic of the kernels' access pattern
};

// Extra controls of the CUDA backend, reached with dynamic_cast from a LikelihoodBackend.
class CudaBackendControls {
  public:
    virtual ~CudaBackendControls() = default;
    // Fill every output table and buffer with NaN before each evaluation and count what stays NaN.
    virtual void setPoisonOutputs(bool poison) = 0;
    // Time every wave separately (an event after each; for `gpurec bench --wave-profile`).
    virtual void setWaveProfiling(bool on) = 0;
    virtual CudaRunInfo lastRun() const = 0;
};

// Device-to-device copy bandwidth of the device in bytes/s (reads plus writes), measured once.
double measureCudaCopyBandwidth(int device);

} // namespace gpurec
