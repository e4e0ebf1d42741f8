// MessageBars: the three lines the main window shows above the timeline, each hidden until it has
// something to say: the no-GPU banner (one line, the runner's whole message under "Details"), the timing
// banner (the trace on screen was timed by CUDA events, not CUPTI) and the error bar (the last failure,
// until dismissed or, for a workload's problems, until they are fixed). The window lays the three out;
// this object decides what they say and when they show.
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QWidget;

namespace streamscope::gui {

class MessageBars : public QObject {
    Q_OBJECT
public:
    // The widgets are children of `parent` (the window), for it to place.
    explicit MessageBars(QWidget *parent);

    QLabel *banner() const { return m_banner; }
    QLabel *timingBanner() const { return m_timingBanner; }
    QWidget *errorBar() const { return m_errorBar; }

    // The error bar: "what: message" until dismissed. fromEditorIssues: it tells of the editor's
    // problems, and clears once they are fixed (editorIssuesChanged).
    void showError(const QString &what, const QString &message, bool fromEditorIssues = false);
    void clearError();
    void editorIssuesChanged(int count);
    QString lastError() const { return m_lastError; }

    // The no-GPU banner; empty text hides it. It stays hidden while `suppressed` (presentation mode).
    void showBanner(const QString &text, const QString &details = {});
    void showBannerDetails(bool on);
    void setBannerSuppressed(bool suppressed);
    QString bannerText() const; // what it says (with its details when shown), empty when hidden

    // The timing banner: empty text hides it.
    void setTimingText(const QString &text);
    QString timingBannerText() const; // empty when hidden

signals:
    // An error was shown: its first part, for the status bar.
    void errorShown(const QString &what);

private:
    QLabel *m_banner;
    QLabel *m_timingBanner;
    QWidget *m_errorBar;
    QLabel *m_errorText;
    QString m_bannerText;
    QString m_bannerDetails; // the runner's whole message, shown on demand
    bool m_bannerDetailsShown = false;
    bool m_bannerSuppressed = false;
    QString m_lastError;
    bool m_errorFromEditorIssues = false;
};

} // namespace streamscope::gui
