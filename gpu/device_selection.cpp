#include "device_selection.hpp"

#include <omp.h>
#include <stdexcept>

#ifdef GPUREC_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif

namespace gpurec {

namespace {
std::string cpuDescription() { return "cpu (" + std::to_string(omp_get_max_threads()) + " threads)"; }

int parseCudaIndex(const std::string& device) {
    if (device == "cuda") return 0;
    std::string rest = device.substr(5);
    std::size_t used = 0;
    int index = -1;
    try {
        index = std::stoi(rest, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != rest.size() || index < 0)
        throw std::invalid_argument("bad device '" + device + "' (expected auto, cpu, cuda or cuda:N)");
    return index;
}
} // namespace

bool cudaBackendCompiled() {
#ifdef GPUREC_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::vector<std::string> availableDevices() {
    std::vector<std::string> out{cpuDescription()};
#ifdef GPUREC_HAVE_CUDA
    for (const std::string& d : cudaDeviceDescriptions()) out.push_back(d);
#endif
    return out;
}

BackendChoice selectBackend(const std::string& device, std::shared_ptr<const Dataset> data, const BatchLimits& limits) {
    BackendChoice choice;
    if (device != "auto" && device != "cpu" && device.rfind("cuda", 0) != 0)
        throw std::invalid_argument("bad device '" + device + "' (expected auto, cpu, cuda or cuda:N)");
    if (device == "cpu") {
        choice.backend = makeCpuBackend(data);
        choice.description = cpuDescription();
        return choice;
    }
    int index = device == "auto" ? 0 : parseCudaIndex(device);
#ifdef GPUREC_HAVE_CUDA
    int count = cudaDeviceCount();
    if (index < count) {
        choice.backend = makeCudaBackend(data, index, limits);
        choice.description = cudaDeviceDescriptions()[index];
        return choice;
    }
    if (device != "auto")
        throw std::runtime_error("device " + device + " requested but " + std::to_string(count) +
                                 " CUDA device(s) are usable");
    choice.note = "no usable CUDA device found: running on the CPU";
#else
    (void)limits;
    (void)index;
    if (device != "auto") throw std::runtime_error("device " + device + " requested but this build has no CUDA backend");
    choice.note = "this build has no CUDA backend: running on the CPU";
#endif
    choice.backend = makeCpuBackend(data);
    choice.description = cpuDescription();
    return choice;
}

} // namespace gpurec
