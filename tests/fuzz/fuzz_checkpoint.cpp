// checkpoint.json on arbitrary bytes: the optimisation checkpoint (checkpointFromJson) and, under
// run.memory, what a species-tree search had learned (searchMemoryFromJson). Each must read or
// refuse with its documented exception; a memory that reads writes back to one that reads the same.
#include "optim/checkpoint.hpp"
#include "species_search/search_memory.hpp"

#include <bit>
#include <cstdint>
#include <stdexcept>

namespace {

bool sameValues(const std::vector<gpurec::KeyedValue>& a, const std::vector<gpurec::KeyedValue>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].first != b[i].first || a[i].second != b[i].second ||
            (a[i].value == a[i].value &&
             std::bit_cast<std::uint64_t>(a[i].value) != std::bit_cast<std::uint64_t>(b[i].value)))
            return false;
    return true;
}

void checkMemory(const nlohmann::json& json) {
    gpurec::SearchMemory memory;
    try {
        memory = gpurec::searchMemoryFromJson(json);
    } catch (const std::invalid_argument&) {
        return;
    }
    const gpurec::SearchMemory again =
        gpurec::searchMemoryFromJson(nlohmann::json::parse(gpurec::searchMemoryJson(memory).dump()));
    if (!sameValues(memory.settled, again.settled) || !sameValues(memory.sprMemory, again.sprMemory) ||
        memory.drops != again.drops || memory.transferRounds != again.transferRounds ||
        memory.kh.counts != again.kh.counts || memory.screening.has_value() != again.screening.has_value())
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr, false);
    if (json.is_discarded()) return 0;
    try {
        gpurec::checkpointFromJson(json);
    } catch (const std::runtime_error&) {
    }
    if (json.is_object() && json.contains("run") && json["run"].is_object() && json["run"].contains("memory"))
        checkMemory(json["run"]["memory"]);
    return 0;
}
