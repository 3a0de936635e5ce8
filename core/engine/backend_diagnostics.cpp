#include "engine/backend_diagnostics.hpp"

namespace gpurec {

const char* toString(EvaluationPhase phase) {
    static const char* const names[kEvaluationPhases] = {"extinction", "forward", "adjoint", "gradient"};
    return names[static_cast<int>(phase)];
}

} // namespace gpurec
