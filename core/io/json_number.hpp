#pragma once
// JSON has no NaN or infinity: a value not known yet (an NLL before any evaluation) is written as
// null and read back as NaN. Shared by the checkpoint and the workbench's session files.
#include <cmath>
#include <nlohmann/json.hpp>

namespace gpurec {

inline nlohmann::json jsonNumber(double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
inline double numberFromJson(const nlohmann::json& j) {
    return j.is_null() ? NAN : j.get<double>();
}

} // namespace gpurec
