#pragma once
// AleRax's transfer-highway files (../shared/docs/alerax-files.md §2): the candidates a user gives
// (--highway-candidates-file), and the `src, dest, proba, llDiff` tables AleRax writes under
// highways/ (candidate_highways.txt, accepted_highways.txt), which gpurec also reads back as
// --highways-file. Numbers are written with 17 significant digits.
#include "model/highways.hpp"
#include "tree/species_tree.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpurec {

// A highway with its rate ρ (`proba`, on the scale of δ, λ, τ) and the log-likelihood it gained
// when it was tested (`llDiff`).
struct HighwayRecord {
    Highway highway;
    double rate = 0.1;
    double llDiff = 0.0;
};

// Whether a transfer from `source` may reach `destination` under the constraint (AleRax's
// isHighwayCompatible: a recipient of R(source)).
bool highwayAllowed(const SpeciesTree& tree, TransferConstraint constraint, const Highway& highway);

// --highway-candidates-file: `FROM,TO` lines of species node labels, or `*` for every node;
// blanks are removed, blank and `#` lines skipped. Pairs a transfer cannot take are dropped (as
// AleRax drops them), repeats kept once. Throws InputError (file, line, column) for an unknown label
// or a line that is not `FROM,TO`, where AleRax silently empties the list.
std::vector<Highway> readHighwayCandidates(const std::string& path, const SpeciesTree& tree,
                                           TransferConstraint constraint);

// The `src, dest, proba, llDiff` table (its header optional, llDiff optional). Throws InputError for
// an unknown label, a bad or non-positive rate, a highway a transfer cannot take, or one given twice.
std::vector<HighwayRecord> readHighways(const std::string& path, const SpeciesTree& tree,
                                        TransferConstraint constraint);
// Atomically, with AleRax's header; without the llDiff column when `withGain` is false (the rates
// a fit ended at, model_parameters/highways.txt).
void writeHighways(const std::string& path, const SpeciesTree& tree,
                   const std::vector<HighwayRecord>& records, bool withGain = true);

// highways/accepted_transfers/highway_<src>_to_<dest>.txt for every highway (AleRax's layout):
// `fam, transfers`, each family's mean number of sampled src -> dest transfers (T and TL; `perFamily`
// holds them by (source, destination)), by decreasing mean then name, up to the first zero.
void writeHighwayTransfers(const std::string& folder, const SpeciesTree& tree,
                           const std::vector<Highway>& highways, const std::vector<std::string>& families,
                           const std::vector<const std::map<std::pair<int, int>, double>*>& perFamily);

} // namespace gpurec
