#include "io/text_fields.hpp"

#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <cctype>
#include <sstream>

namespace gpurec {

std::vector<Field> splitFields(const std::string& line, const std::string& path, int lineNo) {
    std::vector<Field> fields;
    for (std::size_t i = 0; i < line.size();) {
        if (std::isspace(static_cast<unsigned char>(line[i]))) {
            ++i;
            continue;
        }
        std::size_t j = i;
        std::string text;
        if (line[i] == '\'') {
            for (j = i + 1; j < line.size(); ++j) {
                if (line[j] != '\'')
                    text += line[j];
                else if (j + 1 < line.size() && line[j + 1] == '\'')
                    text += line[++j];
                else
                    break;
            }
            if (j >= line.size())
                throw InputError(path, lineNo, static_cast<int>(i) + 1, "unterminated quoted name");
            ++j;
        } else {
            while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
                ++j;
            text = line.substr(i, j - i);
        }
        fields.push_back({text, static_cast<int>(i) + 1});
        i = j;
    }
    return fields;
}

std::vector<std::pair<int, std::vector<Field>>> contentLines(const std::string& path) {
    std::istringstream in(readTextFile(path));
    std::string line;
    std::vector<std::pair<int, std::vector<Field>>> out;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        std::vector<Field> fields = splitFields(line, path, lineNo);
        if (!fields.empty() && fields[0].text[0] != '#') out.emplace_back(lineNo, std::move(fields));
    }
    return out;
}

} // namespace gpurec
