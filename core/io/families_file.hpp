#pragma once
// The AleRax families file: "[FAMILIES]", "- name", "gene_tree = path", "mapping = path".
#include "io/input_error.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpurec {

struct FamilyInput {
    std::string name;
    std::string geneTreePath;        // resolved
    std::string mappingPath;         // resolved, empty when the default rule applies
    std::string source;              // families file (empty for command-line lists)
    int line = 0;                    // of "- name"
    std::optional<InputError> error; // a bad line of this family: the family is skipped, not the file
};

// Relative paths are resolved against the families file's folder only. Errors in a family's own
// lines (unknown key, empty value, no gene_tree, repeated name) are kept in that family's `error`;
// errors of the file as a whole throw InputError.
std::vector<FamilyInput> readFamiliesFile(const std::string& path);
std::vector<FamilyInput> parseFamilies(const std::string& text, const std::string& source);
// One family per gene-tree file, named after the file without its extension.
std::vector<FamilyInput> familiesFromGeneTreeFiles(const std::vector<std::string>& paths);

} // namespace gpurec
