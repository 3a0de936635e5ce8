#include "panels/guided_tour_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

namespace gpurec::ui {

GuidedTourPanel::GuidedTourPanel(QWidget* parent) : QWidget(parent) {
    title_ = new QLabel;
    title_->setObjectName("tourTitle");
    title_->setWordWrap(true);
    QFont bold = title_->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    title_->setFont(bold);
    text_ = new QTextBrowser;
    text_->setObjectName("tourText");
    text_->setAccessibleName(tr("Guided tour text"));
    text_->setOpenLinks(false);
    text_->setFrameShape(QFrame::NoFrame);
    status_ = new QLabel;
    status_->setObjectName("tourStatus");
    status_->setAccessibleName(tr("Guided tour stop"));
    back_ = new QPushButton(tr("◀ &Back"));
    back_->setObjectName("tourBack");
    back_->setAccessibleName(tr("Previous stop of the tour"));
    next_ = new QPushButton;
    next_->setObjectName("tourNext");
    next_->setAccessibleName(tr("Next stop of the tour"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(back_);
    buttons->addWidget(status_, 1, Qt::AlignCenter);
    buttons->addWidget(next_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(title_);
    layout->addWidget(text_, 1);
    layout->addLayout(buttons);
    connect(back_, &QPushButton::clicked, this, [this] { showStop(current_ - 1); });
    connect(next_, &QPushButton::clicked, this, [this] {
        if (current_ + 1 < stopCount())
            showStop(current_ + 1);
        else
            emit finished();
    });
    setStops({});
}

void GuidedTourPanel::setStops(std::vector<TourStop> stops, const QString& noTour) {
    stops_ = std::move(stops);
    current_ = -1;
    if (stops_.empty()) {
        title_->setText(tr("No guided tour"));
        text_->setHtml(noTour);
        status_->clear();
        back_->setEnabled(false);
        next_->setEnabled(false);
        next_->setText(tr("&Next ▶"));
        return;
    }
    showStop(0);
}

void GuidedTourPanel::showStop(int index) {
    if (stops_.empty()) return;
    current_ = std::clamp(index, 0, stopCount() - 1);
    const TourStop& stop = stops_[current_];
    title_->setText(stop.title);
    text_->setHtml(stop.text);
    status_->setText(tr("%1 of %2").arg(current_ + 1).arg(stopCount()));
    back_->setEnabled(current_ > 0);
    next_->setEnabled(true);
    next_->setText(current_ + 1 < stopCount() ? tr("&Next ▶") : tr("&Finish"));
    emit stopShown(current_);
}

QString GuidedTourPanel::title() const {
    return title_->text();
}

QString GuidedTourPanel::text() const {
    return text_->toPlainText();
}

} // namespace gpurec::ui
