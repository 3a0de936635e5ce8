#include "model/event_model.hpp"

#include <stdexcept>

namespace gpurec {

RecModel parseRecModel(const std::string& text) {
    if (text == "UndatedDTL") return RecModel::UndatedDTL;
    if (text == "UndatedDL") return RecModel::UndatedDL;
    throw std::invalid_argument("unknown reconciliation model '" + text +
                                "' (expected UndatedDTL or UndatedDL)");
}

std::string toString(RecModel model) {
    return model == RecModel::UndatedDTL ? "UndatedDTL" : "UndatedDL";
}

void EventModel::validate() const {
    // The same refusals as AleRax's argument checks: each flag names events UndatedDL lacks or would
    // leave a model AleRax does not define.
    if (recModel == RecModel::UndatedDL && noDup)
        throw std::invalid_argument("--no-dup can only be used with --rec-model UndatedDTL");
    if (recModel == RecModel::UndatedDL && noTl)
        throw std::invalid_argument("--no-tl can only be used with --rec-model UndatedDTL");
    if (noDup && noTl) throw std::invalid_argument("--no-dup cannot be used with --no-tl");
    if (recModel == RecModel::UndatedDL && pairwiseTransfers)
        throw std::invalid_argument("--pairwise-transfers can only be used with --rec-model UndatedDTL");
}

} // namespace gpurec
