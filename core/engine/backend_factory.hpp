#pragma once
// Makes the backend for "--device auto|cpu|<kind>|<kind>:N", falling back to the CPU when no device
// is usable. The CPU reference is always there; device backends (the CUDA backend of gpu/)
// register themselves, so core/ does not depend on them.
#include "engine/backend.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpurec {

// A kind of device backend, registered once by the library that implements it.
struct DeviceBackendKind {
    std::string name;  // "cuda": devices are named "cuda" (the first) and "cuda:N"
    std::string label; // "CUDA", for messages
    // Descriptions of the usable devices, e.g. "cuda:0 NVIDIA H200 (139.8 GiB)"; empty when there
    // is no driver or no device (never throws).
    std::function<std::vector<std::string>()> devices;
    // Throws std::runtime_error when the device cannot be used or the dataset cannot be planned.
    std::function<std::unique_ptr<LikelihoodBackend>(std::shared_ptr<const Dataset>, int index,
                                                     const BatchLimits&)>
        make;
};

// Returns true, so that a library can register from a namespace-scope initialiser.
bool registerDeviceBackend(DeviceBackendKind kind);
// Names of the device backends this build has ("cuda"), whether or not a device is present.
std::vector<std::string> deviceBackendKinds();

struct BackendChoice {
    std::unique_ptr<LikelihoodBackend> backend;
    std::string description; // e.g. "cpu (2 threads)" or "cuda:0 NVIDIA H200"
    std::string note;        // one line for the user when the request could not be met as asked
};

// Throws std::invalid_argument for a malformed device string, std::runtime_error when an explicitly
// requested device is unavailable.
BackendChoice selectBackend(const std::string& device, const std::shared_ptr<const Dataset>& data,
                            const BatchLimits& limits);

// Builds a backend (CPU threads or CUDA) for a dataset, on a device chosen once by the caller.
using BackendFactory = std::function<std::unique_ptr<LikelihoodBackend>(std::shared_ptr<const Dataset>)>;

// Human-readable list of usable devices, the CPU first ("cpu (2 threads)", "cuda:0 NVIDIA H200 (139 GiB)").
std::vector<std::string> availableDevices();
// Names that select each usable device ("cpu", "cuda:0", ...), in the order of availableDevices().
std::vector<std::string> availableDeviceNames();

} // namespace gpurec
