#pragma once
// Picks the backend for "--device auto|cpu|cuda|cuda:N"; falls back to the CPU when no GPU is usable.
#include "engine/backend.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpurec {

struct BackendChoice {
    std::unique_ptr<LikelihoodBackend> backend;
    std::string description; // e.g. "cpu (2 threads)" or "cuda:0 NVIDIA H200"
    std::string note;        // one line for the user when the request could not be met as asked
};

// Throws std::invalid_argument for a malformed device string, std::runtime_error when an explicitly
// requested GPU is unavailable.
BackendChoice selectBackend(const std::string& device, std::shared_ptr<const Dataset> data, const BatchLimits& limits);

// Human-readable list of usable devices ("cpu", "cuda:0 NVIDIA H200 (139 GiB)").
std::vector<std::string> availableDevices();
bool cudaBackendCompiled();

} // namespace gpurec
