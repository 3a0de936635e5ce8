#include "optim/parameter_classes.hpp"

#include "io/input_error.hpp"
#include "io/text_fields.hpp"

#include <filesystem>
#include <map>
#include <utility>

namespace gpurec {

std::string parameterLetters(RecModel model, bool optimizeOrigination) {
    std::string letters = model == RecModel::UndatedDL ? "DL" : "DLT";
    if (optimizeOrigination) letters += 'O';
    return letters;
}

namespace {

// The four types' slots: D, L, T, O.
int typeSlot(char letter) {
    switch (letter) {
    case 'D':
        return 0;
    case 'L':
        return 1;
    case 'T':
        return 2;
    default:
        return 3;
    }
}

} // namespace

ParameterClassMap readParameterClasses(const std::string& path, const SpeciesTree& species, RecModel model,
                                       bool optimizeOrigination) {
    if (!std::filesystem::is_regular_file(path))
        throw InputError(path, 0, 0, "cannot open the parametrization file");
    const std::string letters = parameterLetters(model, optimizeOrigination);
    ParameterClassMap map;
    // Root classes, one per type in type order; T exists under UndatedDL too (unread, never moved).
    const std::string rootTypes = optimizeOrigination ? "DLTO" : "DLT";
    for (char type : rootTypes) {
        map.entryType.push_back(type);
        map.entryNames.push_back(species.name(species.root()) + " " + type);
    }
    // Per (node, type slot): the entry of a class the file starts there.
    std::map<std::pair<int, int>, int> started;
    std::map<std::pair<int, int>, int> startedAt; // its line, for the error on a repeat
    for (const auto& [lineNo, fields] : contentLines(path)) {
        const std::string& label = fields[0].text;
        const int e = species.find(label);
        if (e < 0)
            throw InputError(path, lineNo, fields[0].column,
                             "label '" + label + "' is not in the species tree");
        if (fields.size() < 2)
            throw InputError(path, lineNo, fields[0].column,
                             "no parameter type (" + letters + ") for species node '" + label + "'");
        if (fields.size() > 2)
            throw InputError(path, lineNo, fields[2].column,
                             "expected 'label TYPES', found extra field '" + fields[2].text + "'");
        const Field& types = fields[1];
        for (std::size_t i = 0; i < types.text.size(); ++i) {
            const char type = types.text[i];
            const int column = types.column + static_cast<int>(i);
            if (letters.find(type) == std::string::npos)
                throw InputError(path, lineNo, column,
                                 std::string("parameter type '") + type + "' is not one of the model's (" +
                                     letters + ")");
            if (e == species.root()) continue; // the root's classes exist already
            const std::pair<int, int> key{e, typeSlot(type)};
            if (const auto seen = startedAt.find(key); seen != startedAt.end())
                throw InputError(path, lineNo, column,
                                 std::string("species node '") + label +
                                     "' already has its own class of type " + type + " (line " +
                                     std::to_string(seen->second) + ")");
            started[key] = static_cast<int>(map.entryType.size());
            startedAt[key] = lineNo;
            map.entryType.push_back(type);
            map.entryNames.push_back(label + " " + type);
        }
    }
    // Each node takes its own class of a type, else its nearest listed ancestor's, else the root's:
    // postorder puts parents after children, so walk from the root down.
    const int n = species.size();
    std::array<std::vector<int>, 4> entryOf;
    for (int slot = 0; slot < 4; ++slot)
        entryOf[slot].assign(n, slot);
    for (int e = n - 1; e >= 0; --e)
        for (int slot = 0; slot < 4; ++slot) {
            if (const auto own = started.find({e, slot}); own != started.end())
                entryOf[slot][e] = own->second;
            else if (species.parent(e) >= 0)
                entryOf[slot][e] = entryOf[slot][species.parent(e)];
        }
    for (int k = 0; k < 3; ++k)
        map.rateEntry[k] = entryOf[k];
    if (optimizeOrigination) map.originEntry = entryOf[3];
    return map;
}

} // namespace gpurec
