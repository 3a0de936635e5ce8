#pragma once
// Controls and measurements that only some backends have (the CUDA backend's today), reached
// through LikelihoodBackend::diagnostics() rather than by casting to a backend type: `gpurec check`,
// `gpurec bench` and the backend conformance suite use them.
#include <array>
#include <string>
#include <vector>

namespace gpurec {

enum class EvaluationPhase { Extinction, Forward, Adjoint, Gradient };
constexpr int kEvaluationPhases = 4;
const char* toString(EvaluationPhase phase); // "extinction", "forward", ...

// What the last evaluate() did on the device.
struct DeviceRunInfo {
    std::string device;
    double deviceSeconds = 0; // device events around the whole evaluation
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
    int cladesInFlight = 0; // clades the device runs at once
    double peakBytes = 0;   // device memory held by the backend at its peak
    double budgetBytes = 0; // the memory limit the plan was made for
    int batches = 0;
    long long unwrittenEntries = -1; // poisoned table entries left unwritten (−1: poisoning off)
    double tableBytesMoved = 0;      // Π/Π̄/adjoint row traffic of the kernels' access pattern
};

class BackendDiagnostics {
  public:
    virtual ~BackendDiagnostics() = default;
    // Fill every output table and buffer with NaN before each evaluation and count what stays NaN.
    virtual void setPoisonOutputs(bool poison) = 0;
    // Time every wave separately (an event after each; for `gpurec bench --wave-profile`).
    virtual void setWaveProfiling(bool on) = 0;
    virtual DeviceRunInfo lastRun() const = 0;
    // Device-to-device copy bandwidth in bytes/s (reads plus writes), measured now.
    virtual double measureCopyBandwidth() = 0;
    // Makes the next `count` batch-buffer allocations fail as out of memory, so that tests exercise
    // the re-planning with a smaller budget that a real shortage triggers.
    virtual void failNextAllocations(int count) = 0;
};

} // namespace gpurec
