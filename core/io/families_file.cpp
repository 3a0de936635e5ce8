#include "io/families_file.hpp"

#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace gpurec {

namespace {
std::string resolve(const std::string& path, const std::string& source) {
    fs::path p(path);
    if (p.is_absolute() || source.empty()) return path;
    fs::path besideFile = fs::path(source).parent_path() / p;
    std::error_code ec;
    if (fs::exists(besideFile, ec)) return besideFile.lexically_normal().string();
    return path;
}
} // namespace

std::vector<FamilyInput> parseFamilies(const std::string& text, const std::string& source) {
    std::vector<FamilyInput> families;
    std::set<std::string> names;
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    bool inFamilies = false;
    while (std::getline(in, raw)) {
        ++lineNo;
        std::string line;
        for (char c : raw)
            if (!std::isspace(static_cast<unsigned char>(c))) line += c; // AleRax deletes all whitespace
        line = line.substr(0, line.find('#'));
        if (line.empty()) continue;
        if (!inFamilies) {
            inFamilies = line == "[FAMILIES]";
            continue;
        }
        if (line[0] == '-') {
            std::string name = line.substr(1);
            if (name.empty()) throw InputError(source, lineNo, 1, "family name missing after '-'");
            if (!names.insert(name).second) throw InputError(source, lineNo, 1, "duplicate family name '" + name + "'");
            families.push_back({name, "", "", source, lineNo});
            continue;
        }
        auto eq = line.find('=');
        if (eq == std::string::npos)
            throw InputError(source, lineNo, 1, "expected '- family_name' or 'key = value', found '" + line + "'");
        if (families.empty()) throw InputError(source, lineNo, 1, "'" + line.substr(0, eq) + "' before the first '- family_name'");
        std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        if (value.empty()) throw InputError(source, lineNo, static_cast<int>(eq) + 2, "empty value for '" + key + "'");
        FamilyInput& f = families.back();
        if (key == "gene_tree" || key == "starting_gene_tree") {
            f.geneTreePath = resolve(value, source);
        } else if (key == "mapping") {
            f.mappingPath = resolve(value, source);
        } else if (key == "alignment" || key == "subst_model" || key == "likelihoods") {
            // Accepted for AleRax compatibility; not used by the undated model.
        } else {
            throw InputError(source, lineNo, 1, "unknown key '" + key + "' (expected gene_tree, mapping, alignment, subst_model)");
        }
    }
    if (!inFamilies) throw InputError(source, 0, 0, "no [FAMILIES] section");
    if (families.empty()) throw InputError(source, 0, 0, "no family listed after [FAMILIES]");
    for (const FamilyInput& f : families)
        if (f.geneTreePath.empty())
            throw InputError(source, f.line, 1, "family '" + f.name + "' has no gene_tree");
    return families;
}

std::vector<FamilyInput> readFamiliesFile(const std::string& path) { return parseFamilies(readTextFile(path), path); }

std::vector<FamilyInput> familiesFromGeneTreeFiles(const std::vector<std::string>& paths) {
    std::vector<FamilyInput> families;
    std::set<std::string> names;
    for (const std::string& p : paths) {
        std::string name = fs::path(p).stem().string();
        std::string unique = name;
        for (int k = 2; !names.insert(unique).second; ++k) unique = name + "_" + std::to_string(k);
        families.push_back({unique, p, "", "", 0});
    }
    return families;
}

} // namespace gpurec
