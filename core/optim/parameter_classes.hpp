#pragma once
// AleRax's custom --model-parametrization file: which species nodes share a free parameter of each
// event type. One line per node, `label LETTERS` (e.g. `Node_A_B_0 DL`): the node starts a class of
// each letter's type, which its whole subtree inherits until a listed descendant starts its own.
// Every type has a root class first; free parameters are numbered root classes (in type order),
// then one per (line, letter) in file order, as AleRax numbers them. Blank lines and `#` comments
// are skipped; the root's line adds nothing (its classes exist already).
#include "model/event_model.hpp"
#include "model/rate_parameters.hpp"
#include "tree/species_tree.hpp"

#include <string>

namespace gpurec {

// The letters a model's parameters have: "DLT" (UndatedDTL) or "DL" (UndatedDL), and 'O' last
// when origination is optimised.
std::string parameterLetters(RecModel model, bool optimizeOrigination);

// Throws InputError naming the file, line and column for an unreadable file, an unknown label, a
// line without letters, a letter the model lacks or a (node, letter) given twice. Under UndatedDL
// the T entries are one root class that the model never reads.
ParameterClassMap readParameterClasses(const std::string& path, const SpeciesTree& species, RecModel model,
                                       bool optimizeOrigination);

} // namespace gpurec
