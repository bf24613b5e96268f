// Copyright 2026 The inflow Authors.
//
// Progress: the progress display of long CLI commands (`inflow convert`,
// `inflow train`) on stderr. On a terminal it is one line redrawn in place
// at most every `redraw_interval` seconds:
//
//   train [#########...........]  27000/60000  45%  30512 records/s  ETA 1s
//   loss 0.41
//
// Anywhere else (a pipe, a log file, CI) it degrades to one plain line
// every `line_interval` seconds and one at Finish():
//
//   train: 27000/60000 (45%) 30512 records/s ETA 1s loss 0.41
//
// Without a total (total <= 0) there is no bar, percentage or ETA. The
// rate is the average since the first Update() (so a resumed run counts
// only its own work). `extra` is free text the caller appends (loss,
// queue fill).
//
// Not thread-safe: one thread (the one doing the work) calls Update().

#ifndef INFLOW_TOOLS_PROGRESS_H_
#define INFLOW_TOOLS_PROGRESS_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace inflow::tools {

class Progress {
 public:
  enum class Mode { kAuto, kTerminal, kLines };
  struct Options {
    std::string label;
    int64_t total = 0;
    std::string unit = "records";
    std::FILE* out = stderr;
    // kAuto: kTerminal when `out` is a terminal, else kLines.
    Mode mode = Mode::kAuto;
    double redraw_interval = 0.1;  // seconds, terminal
    double line_interval = 10;     // seconds, lines
    // Seconds on a monotonic clock; std::chrono::steady_clock when empty.
    std::function<double()> clock;
    // Terminal width; $COLUMNS, else 80, when 0.
    int columns = 0;
  };

  explicit Progress(Options options);
  // Finishes if Finish() was not called.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` units so far. Cheap when nothing is drawn (one clock read).
  void Update(int64_t done, std::string_view extra = {});
  // Draws the final state and ends the line. Later calls do nothing.
  void Finish(std::string_view extra = {});

  Mode mode() const { return mode_; }

  // The text shown for `done` at time `now` (no "\r" or newline).
  std::string Text(int64_t done, double now, std::string_view extra) const;

  // "1h02m", "3m07s", "42s".
  static std::string FormatDuration(double seconds);

 private:
  void Draw(int64_t done, double now, std::string_view extra);

  Options options_;
  Mode mode_;
  bool started_ = false;
  bool finished_ = false;
  double start_time_ = 0;
  int64_t start_done_ = 0;
  double last_draw_ = 0;
  int64_t last_done_ = 0;
  std::string last_extra_;
  size_t last_width_ = 0;  // terminal: characters of the last line
};

}  // namespace inflow::tools

#endif  // INFLOW_TOOLS_PROGRESS_H_
