// ComparisonWindow: a saved comparison (.sscompare, engine/experiment/comparison_file.h) in one window: the
// variants' timelines stacked on one time scale (StackedTimelines), the makespan bar chart with its
// whiskers and noise verdicts (MakespanChart), bandwidth against transfer size (BandwidthSizeChart),
// for the overlap lesson Harris's published results beside the user's GPU, and the delta table
// (ComparisonTableModel). The whole comparison as shown, the charts and the timelines export to PNG or SVG.
#pragma once

#include "ui/common/image_export.h"

#include <QFont>
#include <QMainWindow>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

#include "engine/experiment/comparison_file.h"

class QAction;
class QChart;
class QLabel;
class QSplitter;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace streamscope::ui {

class BandwidthSizeChart;
class ComparisonTableModel;
class MakespanChart;
class StackedTimelines;

class ComparisonWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit ComparisonWindow(QWidget *parent = nullptr);
    ~ComparisonWindow() override;

    // Reads a .sscompare file and shows it; on failure returns false with *error (what and where).
    bool openFile(const QString &path, QString *error = nullptr);
    void setComparison(engine::Comparison comparison, const QString &displayName);
    const engine::Comparison &comparison() const { return *m_comparison; }

    // The labels shown for the variants: the settings that differ between variants only
    // ("streams=4, order=breadth-first" when every variant has chunks=8).
    static std::vector<QString> shortLabels(const engine::Comparison &comparison);
    // Whether the comparison is the overlap lesson (it varies the issue order): shows Harris's results.
    static bool isOverlapExperiment(const engine::Comparison &comparison);
    // Harris's table and the user's own depth-first vs breadth-first medians, as HTML.
    static QString harrisHtml(const engine::Comparison &comparison,
                              const std::vector<engine::VariantSummary> &summaries);

    StackedTimelines *timelines() const { return m_timelines; }
    MakespanChart *makespanChart() const { return m_makespan; }
    BandwidthSizeChart *bandwidthChart() const { return m_bandwidth; }
    ComparisonTableModel *tableModel() const { return m_tableModel; }
    QTabWidget *tabs() const { return m_tabs; }

    // Writes the comparison to a .sscompare (atomically); a comparison just run lives in a temporary
    // folder until saved. On failure returns false with *error.
    bool saveAs(const QString &path, QString *error = nullptr);
    // The name in the title (a file name, or what a comparison just run is called).
    void setDisplayName(const QString &name);
    // Marks a comparison that exists only in a temporary file: the title says so until it is saved.
    void setUnsaved(bool unsaved);
    bool isUnsaved() const { return m_unsaved; }

    // As the main window's: larger type and lanes for a projector; dark palette for timelines and charts.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presentation; }
    void setDarkPalette(bool dark);
    bool darkPalette() const { return m_dark; }

    // Exports the timelines or the chart of the current tab to .png/.svg at size.
    // Slides, as the timeline's exports: a title (the comparison, GPU, date), text at the image's scale
    // (twice the widget from the menu), and a transparent background where File > Transparent image
    // background of the main window is on (the setting "export/transparent").
    bool exportTimelines(const QString &path, QSize size, QString *error = nullptr);
    bool exportCurrentChart(const QString &path, QSize size, QString *error = nullptr);
    ImageOptions exportOptions() const;
    // The comparison as the window shows it, its widgets rendered at the slide's layout size (the
    // image over the scale): the header, the stacked timelines, the chart of the current tab and,
    // outside presentation mode, the delta table. The header is the slide's title (it names the
    // comparison, GPU and date), so no title band is added over it. File > Export comparison image…
    // and `streamscope X.sscompare --export-image` write it.
    bool exportComparison(const QString &path, QSize size, const ImageOptions &options, QString *error = nullptr);

private:
    void exportDialog(bool timelines);
    void exportComparisonDialog();
    // The chart of the current tab, nullptr on a tab without one (Harris's results).
    QChart *currentChart() const;
    // Runs export with the current chart's background off for a transparent image (a chart paints its own).
    bool withChartBackground(bool transparent, const std::function<bool()> &export_);
    void saveDialog();
    void updateTitle();
    void applyStyle(); // the charts and timelines after a change of comparison, palette or mode

    // Shared so that the timelines' traces (aliases into its variants) outlive a replaced comparison.
    std::shared_ptr<const engine::Comparison> m_comparison = std::make_shared<const engine::Comparison>();
    QString m_displayName;
    bool m_unsaved = false;
    bool m_presentation = false;
    bool m_dark = false;
    QFont m_normalFont;
    QAction *m_presentationAction = nullptr;
    QLabel *m_header = nullptr;
    StackedTimelines *m_timelines = nullptr;
    QTabWidget *m_tabs = nullptr;
    MakespanChart *m_makespan = nullptr;
    BandwidthSizeChart *m_bandwidth = nullptr;
    QTextBrowser *m_harris = nullptr;
    ComparisonTableModel *m_tableModel = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace streamscope::ui
