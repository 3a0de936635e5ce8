#pragma once
// Ticks for axes that count (iterations, likelihood evaluations): whole numbers only, at any zoom,
// so that zooming in never labels an iteration "2.5".
#include <qcustomplot.h>

namespace gpurec::ui {

class IntegerTicker : public QCPAxisTicker {
  protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
};

// Gives `axis` an IntegerTicker (counting) or QCustomPlot's plain ticker, keeping its tick count.
void setCountingAxis(QCPAxis* axis, bool counting);

} // namespace gpurec::ui
