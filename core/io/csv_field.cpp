#include "io/csv_field.hpp"

namespace gpurec {

std::string csvField(const std::string& text) {
    bool quote = !text.empty() && (text.front() == ' ' || text.back() == ' ');
    for (char c : text)
        if (c == ',' || c == '"' || c == '\n' || c == '\r') quote = true;
    if (!quote) return text;
    std::string out = "\"";
    for (char c : text) {
        out += c;
        if (c == '"') out += '"';
    }
    return out + "\"";
}

} // namespace gpurec
