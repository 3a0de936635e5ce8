#include "species_search/search_memory.hpp"

#include "io/json_number.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpurec {

namespace {

nlohmann::json exactNumber(double v) {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

double exactNumberFrom(const nlohmann::json& j) {
    if (j.is_number()) return j.get<double>();
    if (j == "inf") return std::numeric_limits<double>::infinity();
    if (j == "-inf") return -std::numeric_limits<double>::infinity();
    if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
    throw std::invalid_argument("expected a number, \"inf\", \"-inf\" or \"nan\", not " + j.dump());
}

nlohmann::json keyedValuesJson(const std::vector<KeyedValue>& values) {
    nlohmann::json out = nlohmann::json::array();
    for (const KeyedValue& v : values)
        out.push_back({v.first, v.second, exactNumber(v.value)});
    return out;
}

const nlohmann::json& arrayAt(const nlohmann::json& j, const char* key) {
    const nlohmann::json& a = j.at(key);
    if (!a.is_array()) throw std::invalid_argument(std::string("\"") + key + "\" is not a list");
    return a;
}

std::vector<KeyedValue> keyedValuesFrom(const nlohmann::json& j) {
    std::vector<KeyedValue> out;
    for (const nlohmann::json& entry : j) {
        if (!entry.is_array() || entry.size() != 3)
            throw std::invalid_argument("expected [hash, hash, value], not " + entry.dump());
        out.push_back({integerFromJson<std::uint64_t>(entry[0]), integerFromJson<std::uint64_t>(entry[1]),
                       exactNumberFrom(entry[2])});
    }
    return out;
}

nlohmann::json calibrationJson(const std::optional<PrescreenCalibration>& c) {
    if (!c) return nullptr;
    return {
        {"observed", c->observed}, {"above", c->above}, {"squared_errors", exactNumber(c->squaredErrors)}};
}

std::optional<PrescreenCalibration> calibrationFrom(const nlohmann::json& j) {
    if (j.is_null()) return std::nullopt;
    return PrescreenCalibration{integerFromJson<int>(j.at("observed")), integerFromJson<int>(j.at("above")),
                                exactNumberFrom(j.at("squared_errors"))};
}

} // namespace

nlohmann::json searchMemoryJson(const SearchMemory& memory) {
    nlohmann::json sums = nlohmann::json::array(), counts = nlohmann::json::array();
    for (double s : memory.kh.referenceSums)
        sums.push_back(exactNumber(s));
    for (const auto& [split, count] : memory.kh.counts)
        counts.push_back({split, count});
    return {{"settled", keyedValuesJson(memory.settled)},
            {"spr_memory", keyedValuesJson(memory.sprMemory)},
            {"drop_sum", exactNumber(memory.dropSum)},
            {"drops", memory.drops},
            {"transfer_rounds", memory.transferRounds},
            {"screening", calibrationJson(memory.screening)},
            {"confirming", calibrationJson(memory.confirming)},
            {"kh",
             {{"reference_log_likelihood", exactNumber(memory.kh.referenceLogLikelihood)},
              {"reference_sums", sums},
              {"counts", counts}}}};
}

SearchMemory searchMemoryFromJson(const nlohmann::json& json) {
    try {
        SearchMemory m;
        m.settled = keyedValuesFrom(arrayAt(json, "settled"));
        m.sprMemory = keyedValuesFrom(arrayAt(json, "spr_memory"));
        m.dropSum = exactNumberFrom(json.at("drop_sum"));
        m.drops = integerFromJson<long long>(json.at("drops"));
        m.transferRounds = integerFromJson<std::uint64_t>(json.at("transfer_rounds"));
        m.screening = calibrationFrom(json.at("screening"));
        m.confirming = calibrationFrom(json.at("confirming"));
        const nlohmann::json& kh = json.at("kh");
        m.kh.referenceLogLikelihood = exactNumberFrom(kh.at("reference_log_likelihood"));
        for (const nlohmann::json& s : arrayAt(kh, "reference_sums"))
            m.kh.referenceSums.push_back(exactNumberFrom(s));
        for (const nlohmann::json& entry : arrayAt(kh, "counts")) {
            if (!entry.is_array() || entry.size() != 2 || !entry[0].is_array())
                throw std::invalid_argument("expected [split words, count], not " + entry.dump());
            Clade split;
            for (const nlohmann::json& word : entry[0])
                split.push_back(integerFromJson<std::uint64_t>(word));
            m.kh.counts.emplace_back(std::move(split), integerFromJson<int>(entry[1]));
        }
        if (m.drops < 0) throw std::invalid_argument("a negative count of drops");
        return m;
    } catch (const nlohmann::json::exception& e) { // a missing entry or one of another type
        throw std::invalid_argument(std::string("the search memory cannot be read: ") + e.what());
    }
}

} // namespace gpurec
