#pragma once
// The AleRax families file: "[FAMILIES]", "- name", "gene_tree = path", "mapping = path".
#include <string>
#include <vector>

namespace gpurec {

struct FamilyInput {
    std::string name;
    std::string geneTreePath; // resolved
    std::string mappingPath;  // resolved, empty when the default rule applies
    std::string source;       // families file (empty for command-line lists)
    int line = 0;
};

// Paths are resolved relative to the families file's folder first, then the working directory.
std::vector<FamilyInput> readFamiliesFile(const std::string& path);
std::vector<FamilyInput> parseFamilies(const std::string& text, const std::string& source);
// One family per gene-tree file, named after the file without its extension.
std::vector<FamilyInput> familiesFromGeneTreeFiles(const std::vector<std::string>& paths);

} // namespace gpurec
