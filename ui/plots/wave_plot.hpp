#pragma once
// Sizes of the cross-family clade waves (spec 5.4): clades per wave as bars coloured by phase,
// the selected family's share overlaid, splits per wave on the right axis.
#include "data/dataset.hpp"
#include "engine/wave_schedule.hpp"

#include <qcustomplot.h>

namespace gpurec::ui {

class WavePlot : public QCustomPlot {
    Q_OBJECT
  public:
    explicit WavePlot(QWidget* parent = nullptr);
    void setSchedule(const WaveSchedule* schedule); // nullptr clears
    void setSelectedFamily(int family);
    int waveCount() const { return schedule_ ? static_cast<int>(schedule_->waves.size()) : 0; }

  private:
    void fitTitle(); // the y axis' title, shortened when the plot is too short for it
    const WaveSchedule* schedule_ = nullptr;
    std::vector<QCPBars*> phaseBars_;
    QCPBars* familyBars_;
    QCPGraph* splits_;
};

} // namespace gpurec::ui
