#pragma once
// JSON has no NaN or infinity: a value not known yet (an NLL before any evaluation) is written as
// null and read back as NaN. Shared by the checkpoint and the workbench's session files.
//
// The JSON library converts any number to an integer with a plain cast, which is undefined for a
// double outside the integer's range (a damaged or hostile file): integers are read here instead,
// checked against the target type.
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpurec {

inline nlohmann::json jsonNumber(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
inline double numberFromJson(const nlohmann::json& j) {
    return j.is_null() ? NAN : j.get<double>();
}

template <class Integer> Integer integerFromJson(const nlohmann::json& j) {
    static_assert(std::is_integral_v<Integer> && !std::is_same_v<Integer, bool>);
    if (j.is_number_unsigned()) {
        if (const auto v = j.get<std::uint64_t>(); std::in_range<Integer>(v)) return static_cast<Integer>(v);
    } else if (j.is_number_integer()) {
        if (const auto v = j.get<std::int64_t>(); std::in_range<Integer>(v)) return static_cast<Integer>(v);
    } else if (j.is_number_float()) {
        // A whole number written as 3.0 is still that number; anything else is refused.
        const double v = j.get<double>();
        if (v == std::floor(v) && v >= -0x1p63 && v < 0x1p63 &&
            std::in_range<Integer>(static_cast<std::int64_t>(v)))
            return static_cast<Integer>(v);
    }
    throw std::invalid_argument("expected a whole number from " +
                                std::to_string(std::numeric_limits<Integer>::min()) + " to " +
                                std::to_string(std::numeric_limits<Integer>::max()) + ", found " + j.dump());
}

// The member `key` of `object` as an integer; a bad value's error names the key.
template <class Integer> Integer integerField(const nlohmann::json& object, const std::string& key) {
    const nlohmann::json& value = object.at(key);
    try {
        return integerFromJson<Integer>(value);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("\"" + key + "\": " + e.what());
    }
}

template <class Integer> std::vector<Integer> integersFromJson(const nlohmann::json& j) {
    if (!j.is_array()) throw std::invalid_argument("expected a list of whole numbers, found " + j.dump());
    std::vector<Integer> values;
    values.reserve(j.size());
    for (const nlohmann::json& v : j)
        values.push_back(integerFromJson<Integer>(v));
    return values;
}

} // namespace gpurec
