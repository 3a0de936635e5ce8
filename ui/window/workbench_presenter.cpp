// The presenter view and figure export of WorkbenchWindow (declared in workbench_window.hpp).
#include "views/drawing_export.hpp"
#include "window/figure_dialog.hpp"
#include "window/workbench_window.hpp"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QShortcut>
#include <QSplitter>
#include <QStatusBar>

namespace gpurec::ui {

QPalette WorkbenchWindow::highContrastPalette() {
    // Black on white, a dark blue selection, strong frames: every text/background pair above the
    // 7:1 contrast of WCAG's AAA level, also for disabled text.
    QPalette p;
    const QColor white(255, 255, 255), black(0, 0, 0), selection(0, 0, 160);
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        const QColor text = group == QPalette::Disabled ? QColor(64, 64, 64) : black;
        p.setColor(group, QPalette::Window, white);
        p.setColor(group, QPalette::WindowText, text);
        p.setColor(group, QPalette::Base, white);
        p.setColor(group, QPalette::AlternateBase, QColor(235, 235, 235));
        p.setColor(group, QPalette::Text, text);
        p.setColor(group, QPalette::PlaceholderText, QColor(64, 64, 64));
        p.setColor(group, QPalette::Button, white);
        p.setColor(group, QPalette::ButtonText, text);
        p.setColor(group, QPalette::BrightText, black);
        p.setColor(group, QPalette::Highlight, selection);
        p.setColor(group, QPalette::HighlightedText, white);
        p.setColor(group, QPalette::ToolTipBase, white);
        p.setColor(group, QPalette::ToolTipText, black);
        p.setColor(group, QPalette::Link, selection);
        p.setColor(group, QPalette::Light, white);
        p.setColor(group, QPalette::Midlight, QColor(200, 200, 200));
        p.setColor(group, QPalette::Mid, QColor(90, 90, 90));
        p.setColor(group, QPalette::Dark, QColor(40, 40, 40));
        p.setColor(group, QPalette::Shadow, black);
    }
    return p;
}

void WorkbenchWindow::setPresenterView(bool on) {
    if (on != presenter_.has_value()) {
        if (on) {
            presenter_ = PresenterState{saveState(), font(), palette(), windowState()};
            for (QDockWidget* dock : findChildren<QDockWidget*>())
                dock->hide();
            QFont large = font();
            large.setPointSizeF(large.pointSizeF() * kPresenterFontScale);
            setFont(large);
            setPalette(highContrastPalette());
            showFullScreen();
            if (!leavePresenter_) {
                leavePresenter_ = new QShortcut(QKeySequence(Qt::Key_Escape), this);
                connect(leavePresenter_, &QShortcut::activated, this, [this] { setPresenterView(false); });
            }
            leavePresenter_->setEnabled(true);
            appendLog(tr("Presenter view: Esc or F11 leaves it; File ▸ Export figure saves what it shows"));
        } else {
            const PresenterState saved = *presenter_;
            presenter_.reset();
            leavePresenter_->setEnabled(false);
            setFont(saved.font);
            setPalette(saved.palette);
            setWindowState(saved.states);
            restoreState(saved.docks);
        }
    }
    const QSignalBlocker block(presenterAction_);
    presenterAction_->setChecked(on);
}

bool WorkbenchWindow::writeFigure(const QString& path, const QSize& size) {
    const QString title = tr("gpurec: %1").arg(tabs_->tabText(tabs_->currentIndex()));
    const bool ok = exportWidgetFigure(path, *central_, size, title);
    appendLog(ok ? tr("Figure %1 × %2 written to %3").arg(size.width()).arg(size.height()).arg(path)
                 : tr("Could not write the figure %1").arg(path));
    return ok;
}

void WorkbenchWindow::exportFigure() {
    FigureDialog dialog(central_->size(), QDir::current().filePath("figure.svg"), this);
    if (dialog.exec() != QDialog::Accepted) return;
    if (!writeFigure(dialog.path(), dialog.figureSize()))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(dialog.path()));
}

} // namespace gpurec::ui
