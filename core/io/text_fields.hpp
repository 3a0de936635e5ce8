#pragma once
// Whitespace-separated text tables (rate files, fraction-missing files): fields with their columns,
// so that errors can name the place.
#include <string>
#include <utility>
#include <vector>

namespace gpurec {

struct Field {
    std::string text;
    int column; // 1-based
};

// Blank-separated fields; a Newick-quoted name ('' for ') is one field, as written for names with
// blanks. Throws InputError for an unterminated quote.
std::vector<Field> splitFields(const std::string& line, const std::string& path, int lineNo);

// The lines of a text file with their numbers (from 1), comments (# ...) and blank lines left out.
std::vector<std::pair<int, std::vector<Field>>> contentLines(const std::string& path);

} // namespace gpurec
