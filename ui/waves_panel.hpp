#pragma once
// The clade-waves view: the wave-size plot of all families above the selected family's clade DAG.
#include "clade_dag_view.hpp"
#include "wave_plot.hpp"

#include <QWidget>
#include <memory>

class QLabel;

namespace gpurec::ui {

class WavesPanel : public QWidget {
    Q_OBJECT
  public:
    explicit WavesPanel(QWidget* parent = nullptr);
    void setDataset(std::shared_ptr<const Dataset> data, std::shared_ptr<const WaveSchedule> waves);
    void setSelectedFamily(int family);
    WavePlot* plot() const { return plot_; }
    CladeDagView* dag() const { return dag_; }

  signals:
    void cladeSelected(int family, int clade);

  private:
    WavePlot* plot_;
    CladeDagView* dag_;
    QLabel* caption_;
    std::shared_ptr<const Dataset> data_;
    std::shared_ptr<const WaveSchedule> waves_;
    int family_ = -1;
};

} // namespace gpurec::ui
