#pragma once
// Which events the reconciliation model has: AleRax's --rec-model UndatedDTL|UndatedDL and its
// --no-dup, --no-dl and --no-tl (spec 3.1, 5.1). A rate the model lacks is 0 whatever θ holds (its
// θ column is kept, frozen: its gradient is exactly 0); the clade equations Π can lose their
// duplication-loss and transfer-loss terms while the extinction equations E keep every term.
#include "model/event_softmax.hpp"

#include <string>

namespace gpurec {

enum class RecModel { UndatedDTL, UndatedDL };
RecModel parseRecModel(const std::string& text); // UndatedDTL | UndatedDL (AleRax's spellings)
std::string toString(RecModel model);

struct EventModel {
    RecModel recModel = RecModel::UndatedDTL;
    bool noDup = false; // --no-dup: δ = 0 (so no DL either)
    bool noDl = false;  // --no-dl: Π without 2 pD E Π
    bool noTl = false;  // --no-tl: Π without pT Ē Π and pT E Π̄
    // --pairwise-transfers (spec 3.3, the seed's pairwise mode): one rate per donor → recipient pair
    // instead of τ spread evenly over R(e). The pairs are the dataset's transfer highways (one per
    // allowed pair, model/pairwise_transfers.hpp) and the uniform τ is absent.
    bool pairwiseTransfers = false;

    PresentRates presentRates() const {
        return {!noDup, recModel == RecModel::UndatedDTL && !pairwiseTransfers};
    }
    // The self-loop terms of the Π equations that remain.
    bool cladeDuplicationLoss() const { return !noDup && !noDl; }
    bool cladeTransferLoss() const { return recModel == RecModel::UndatedDTL && !noTl; }
    // Throws std::invalid_argument for the combinations AleRax refuses, named by their options.
    void validate() const;
    bool operator==(const EventModel&) const = default;
};

} // namespace gpurec
