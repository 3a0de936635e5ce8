#include "engine/backend_factory.hpp"

#include "engine/gamma_mixture_backend.hpp"

#include <mutex>
#include <omp.h>
#include <stdexcept>

namespace gpurec {

namespace {

std::mutex& registryMutex() {
    static std::mutex m;
    return m;
}

std::vector<DeviceBackendKind>& registry() {
    static std::vector<DeviceBackendKind> kinds;
    return kinds;
}

std::vector<DeviceBackendKind> registeredKinds() {
    std::lock_guard lock(registryMutex());
    return registry();
}

std::string cpuDescription() {
    return "cpu (" + std::to_string(omp_get_max_threads()) + " threads)";
}

// The device names every build accepts (a build without CUDA explains "cuda" rather than reject it).
constexpr const char* kExpected = "auto, cpu, cuda or cuda:N";

// The index N of "<kind>" (0) or "<kind>:N".
int parseIndex(const std::string& device, const std::string& kind) {
    if (device == kind) return 0;
    const std::string rest = device.substr(kind.size() + 1);
    std::size_t used = 0;
    int index = -1;
    try {
        index = std::stoi(rest, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != rest.size() || index < 0)
        throw std::invalid_argument("bad device '" + device + "' (expected " + std::string(kExpected) + ")");
    return index;
}

bool names(const std::string& device, const std::string& kind) {
    return device == kind || device.rfind(kind + ":", 0) == 0;
}

} // namespace

bool registerDeviceBackend(DeviceBackendKind kind) {
    std::lock_guard lock(registryMutex());
    registry().push_back(std::move(kind));
    return true;
}

std::vector<std::string> deviceBackendKinds() {
    std::vector<std::string> out;
    for (const DeviceBackendKind& k : registeredKinds())
        out.push_back(k.name);
    return out;
}

std::vector<std::string> availableDevices() {
    std::vector<std::string> out{cpuDescription()};
    for (const DeviceBackendKind& k : registeredKinds())
        for (const std::string& d : k.devices())
            out.push_back(d);
    return out;
}

std::vector<std::string> availableDeviceNames() {
    std::vector<std::string> out{"cpu"};
    for (const DeviceBackendKind& k : registeredKinds()) {
        const std::size_t count = k.devices().size();
        for (std::size_t i = 0; i < count; ++i)
            out.push_back(k.name + ":" + std::to_string(i));
    }
    return out;
}

namespace {

// A backend of one speciation category on the device asked for, or the CPU.
BackendChoice selectCategoryBackend(const std::string& device, const std::shared_ptr<const Dataset>& data,
                                    const BatchLimits& limits) {
    BackendChoice choice;
    const std::vector<DeviceBackendKind> kinds = registeredKinds();
    const DeviceBackendKind* kind = nullptr;
    for (const DeviceBackendKind& k : kinds)
        if (names(device, k.name)) kind = &k;
    // "cuda" names the CUDA backend even in builds without it (a clearer error than a bad name).
    const bool cudaName = names(device, "cuda");
    if (device != "auto" && device != "cpu" && kind == nullptr && !cudaName)
        throw std::invalid_argument("bad device '" + device + "' (expected " + std::string(kExpected) + ")");
    if (device == "cpu") {
        choice.backend = makeCpuBackend(data);
        choice.description = cpuDescription();
        return choice;
    }
    if (device != "auto" && kind == nullptr)
        throw std::runtime_error("device " + device + " requested but this build has no CUDA backend");
    if (kind == nullptr && !kinds.empty()) kind = &kinds.front(); // auto: the first device kind
    if (kind == nullptr) {
        choice.note = "this build has no CUDA backend: running on the CPU";
    } else {
        const int index = device == "auto" ? 0 : parseIndex(device, kind->name);
        const std::vector<std::string> devices = kind->devices();
        if (index < static_cast<int>(devices.size())) {
            choice.backend = kind->make(data, index, limits);
            choice.description = devices[index];
            return choice;
        }
        if (device != "auto")
            throw std::runtime_error("device " + device + " requested but " + std::to_string(devices.size()) +
                                     " " + kind->label + " device(s) are usable");
        choice.note = "no usable " + kind->label + " device found: running on the CPU";
    }
    choice.backend = makeCpuBackend(data);
    choice.description = cpuDescription();
    return choice;
}

} // namespace

BackendChoice selectBackend(const std::string& device, const std::shared_ptr<const Dataset>& data,
                            const BatchLimits& limits) {
    BackendChoice choice = selectCategoryBackend(device, data, limits);
    const int k = data->speciationCategories;
    if (k < 2) return choice;
    // The CPU keeps one backend per category (each with its warm starts); a device one for all,
    // whose memory the categories then share.
    std::vector<std::unique_ptr<LikelihoodBackend>> backends;
    const bool cpu = choice.backend->name() == "cpu";
    backends.push_back(std::move(choice.backend));
    for (int c = 1; cpu && c < k; ++c)
        backends.push_back(makeCpuBackend(data));
    choice.backend = makeGammaMixtureBackend(data, std::move(backends));
    choice.description += ", " + std::to_string(k) + " speciation categories";
    return choice;
}

} // namespace gpurec
