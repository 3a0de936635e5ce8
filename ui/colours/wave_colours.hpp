#pragma once
// Colours of the three wave phases, shared by the wave-size plot and the clade DAG.
#include "engine/wave_schedule.hpp"

#include <QColor>
#include <QString>

namespace gpurec::ui {

inline QColor phaseColour(WavePhase phase) {
    switch (phase) {
    case WavePhase::Leaves:
        return QColor(70, 130, 200);
    case WavePhase::Internal:
        return QColor(40, 160, 130);
    case WavePhase::Root:
        return QColor(230, 130, 40);
    }
    return Qt::gray;
}

inline QString phaseName(WavePhase phase) {
    switch (phase) {
    case WavePhase::Leaves:
        return "single-gene clades";
    case WavePhase::Internal:
        return "internal clades";
    case WavePhase::Root:
        return "root clades";
    }
    return {};
}

} // namespace gpurec::ui
