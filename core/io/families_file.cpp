#include "io/families_file.hpp"

#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace gpurec {

namespace {
// Relative paths are taken from the families file's folder only: a file that is missing there is
// reported (by its resolved path when read), never looked up in the working directory instead.
std::string resolve(const std::string& path, const std::string& source) {
    fs::path p(path);
    if (p.is_absolute() || source.empty()) return path;
    return (fs::path(source).parent_path() / p).lexically_normal().string();
}
} // namespace

std::vector<FamilyInput> parseFamilies(const std::string& text, const std::string& source) {
    std::vector<FamilyInput> families;
    std::map<std::string, int> firstLine; // family name -> line of its first '- name'
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    bool inFamilies = false;
    // A problem inside a family's lines makes that family bad (skipped by the loader); the
    // first problem is kept.
    auto familyProblem = [&](int column, const std::string& problem) {
        FamilyInput& f = families.back();
        if (!f.error) f.error = InputError(source, lineNo, column, problem);
    };
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
            FamilyInput f;
            f.name = name;
            f.source = source;
            f.line = lineNo;
            families.push_back(std::move(f));
            auto [first, isNew] = firstLine.emplace(name, lineNo);
            if (!isNew)
                familyProblem(1, "duplicate family name '" + name + "' (first at line " +
                                     std::to_string(first->second) + ")");
            continue;
        }
        auto eq = line.find('=');
        if (families.empty()) {
            if (eq == std::string::npos)
                throw InputError(source, lineNo, 1,
                                 "expected '- family_name' or 'key = value', found '" + line + "'");
            throw InputError(source, lineNo, 1,
                             "'" + line.substr(0, eq) + "' before the first '- family_name'");
        }
        if (eq == std::string::npos) {
            familyProblem(1, "expected '- family_name' or 'key = value', found '" + line + "'");
            continue;
        }
        std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        FamilyInput& f = families.back();
        if (value.empty()) {
            familyProblem(static_cast<int>(eq) + 2, "empty value for '" + key + "'");
        } else if (key == "gene_tree" || key == "starting_gene_tree") {
            f.geneTreePath = resolve(value, source);
        } else if (key == "mapping") {
            f.mappingPath = resolve(value, source);
        } else if (key == "alignment" || key == "subst_model" || key == "likelihoods") {
            // Accepted for AleRax compatibility; not used by the undated model.
        } else {
            familyProblem(1,
                          "unknown key '" + key + "' (expected gene_tree, mapping, alignment, subst_model)");
        }
    }
    if (!inFamilies) throw InputError(source, 0, 0, "no [FAMILIES] section");
    if (families.empty()) throw InputError(source, 0, 0, "no family listed after [FAMILIES]");
    for (FamilyInput& f : families)
        if (f.geneTreePath.empty() && !f.error)
            f.error = InputError(source, f.line, 1, "family '" + f.name + "' has no gene_tree");
    return families;
}

std::vector<FamilyInput> readFamiliesFile(const std::string& path) {
    return parseFamilies(readTextFile(path), path);
}

std::vector<FamilyInput> familiesFromGeneTreeFiles(const std::vector<std::string>& paths) {
    std::vector<FamilyInput> families;
    std::set<std::string> names;
    for (const std::string& p : paths) {
        std::string name = fs::path(p).stem().string();
        std::string unique = name;
        for (int k = 2; !names.insert(unique).second; ++k)
            unique = name + "_" + std::to_string(k);
        FamilyInput f;
        f.name = unique;
        f.geneTreePath = p;
        families.push_back(std::move(f));
    }
    return families;
}

} // namespace gpurec
