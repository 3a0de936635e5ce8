#include "window/figure_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace gpurec::ui {

FigureDialog::FigureDialog(const QSize& current, const QString& path, QWidget* parent) : QDialog(parent) {
    setObjectName("figureDialog");
    setWindowTitle(tr("Export figure"));
    preset_ = new QComboBox;
    preset_->setObjectName("figurePreset");
    preset_->setAccessibleName(tr("Figure size preset"));
    const std::pair<QString, QSize> presets[] = {
        {tr("Slide 16:9 (1920 × 1080)"), {1920, 1080}},
        {tr("Slide 4:3 (1600 × 1200)"), {1600, 1200}},
        {tr("Poster (3840 × 2160)"), {3840, 2160}},
        {tr("As on screen (%1 × %2)").arg(current.width()).arg(current.height()), current}};
    for (const auto& [name, size] : presets)
        preset_->addItem(name, size);
    preset_->addItem(tr("Custom"));
    auto spin = [](const QString& name, const QString& accessible) {
        auto* s = new QSpinBox;
        s->setObjectName(name);
        s->setAccessibleName(accessible);
        s->setRange(100, 20000);
        s->setSuffix(tr(" px"));
        return s;
    };
    width_ = spin("figureWidth", tr("Figure width"));
    height_ = spin("figureHeight", tr("Figure height"));
    path_ = new QLineEdit(path);
    path_->setObjectName("figurePath");
    path_->setAccessibleName(tr("Figure file"));
    path_->setToolTip(tr("The extension chooses the format: .svg, .pdf (size in points) or .png"));
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setAccessibleName(tr("Choose the figure file"));
    auto* file = new QHBoxLayout;
    file->addWidget(path_, 1);
    file->addWidget(browse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel);
    QPushButton* save = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    save->setObjectName("figureExport");
    save->setDefault(true);

    auto* form = new QFormLayout(this);
    form->addRow(tr("Size"), preset_);
    form->addRow(tr("Width"), width_);
    form->addRow(tr("Height"), height_);
    form->addRow(tr("File"), file);
    form->addRow(buttons);

    auto applyPreset = [this] {
        const QVariant size = preset_->currentData();
        if (!size.isValid()) return; // Custom: the numbers as typed
        const QSignalBlocker w(width_), h(height_);
        width_->setValue(size.toSize().width());
        height_->setValue(size.toSize().height());
    };
    connect(preset_, &QComboBox::currentIndexChanged, this, applyPreset);
    for (QSpinBox* s : {width_, height_})
        connect(s, &QSpinBox::valueChanged, this, [this] { preset_->setCurrentIndex(preset_->count() - 1); });
    applyPreset();
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen =
            QFileDialog::getSaveFileName(this, tr("Export figure"), path_->text(),
                                         tr("SVG drawing (*.svg);;PDF document (*.pdf);;PNG image (*.png)"));
        if (!chosen.isEmpty()) path_->setText(chosen);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(path_, &QLineEdit::textChanged, this,
            [save](const QString& text) { save->setEnabled(!text.trimmed().isEmpty()); });
    save->setEnabled(!path.trimmed().isEmpty());
}

QSize FigureDialog::figureSize() const {
    return {width_->value(), height_->value()};
}

QString FigureDialog::path() const {
    return path_->text().trimmed();
}

} // namespace gpurec::ui
