// Copyright 2026 The inflow Authors.

#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace inflow::tools {
namespace {

double SteadyNow() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

}  // namespace

Progress::Progress(Options options) : options_(std::move(options)) {
  if (!options_.clock) options_.clock = SteadyNow;
  mode_ = options_.mode;
  if (mode_ == Mode::kAuto) {
    mode_ = ::isatty(::fileno(options_.out)) ? Mode::kTerminal : Mode::kLines;
  }
  if (options_.columns <= 0) {
    const char* columns = std::getenv("COLUMNS");
    options_.columns = columns != nullptr ? std::atoi(columns) : 0;
    if (options_.columns <= 20) options_.columns = 80;
  }
}

Progress::~Progress() { Finish(last_extra_); }

std::string Progress::FormatDuration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "?";
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%lldh%02lldm",
                  static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  } else if (s >= 60) {
    std::snprintf(buf, sizeof(buf), "%lldm%02llds",
                  static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%llds", static_cast<long long>(s));
  }
  return buf;
}

std::string Progress::Text(int64_t done, double now,
                           std::string_view extra) const {
  // Built with append() only: gcc 12 warns (-Wrestrict) on some
  // "literal" + std::string chains.
  const double elapsed = now - start_time_;
  const double rate =
      elapsed > 0 ? static_cast<double>(done - start_done_) / elapsed : 0;
  const bool terminal = mode_ == Mode::kTerminal;
  const char* gap = terminal ? "  " : " ";
  const int64_t total = options_.total;
  const double fraction =
      total > 0
          ? std::clamp(static_cast<double>(done) / static_cast<double>(total),
                       0.0, 1.0)
          : 0.0;
  std::string count = std::to_string(done);
  if (total > 0) count.append("/").append(std::to_string(total));
  std::string stats;
  if (total > 0) {
    const std::string percent = Fixed(100 * fraction, 0);
    if (terminal) {
      stats.append(percent).append("%");
    } else {
      stats.append("(").append(percent).append("%)");
    }
    stats.append(gap);
  }
  stats.append(Fixed(rate, rate < 10 ? 2 : 0))
      .append(" ")
      .append(options_.unit)
      .append("/s");
  if (total > 0 && done < total && rate > 0) {
    stats.append(gap).append("ETA ").append(
        FormatDuration(static_cast<double>(total - done) / rate));
  }
  std::string line = options_.label;
  if (terminal) {
    if (total > 0) {
      // The bar takes what the label and the numbers leave, 10 to 30.
      const int used = static_cast<int>(options_.label.size() + count.size() +
                                        stats.size() + extra.size() + 10);
      const int width = std::clamp(options_.columns - used, 10, 30);
      const int filled = static_cast<int>(fraction * width);
      line.append(" [")
          .append(static_cast<size_t>(filled), '#')
          .append(static_cast<size_t>(width - filled), '.')
          .append("]");
    }
    line.append("  ").append(count).append("  ").append(stats);
    if (!extra.empty()) line.append("  ").append(extra);
    if (line.size() > static_cast<size_t>(options_.columns - 1)) {
      line.resize(static_cast<size_t>(options_.columns - 1));
    }
  } else {
    line.append(": ").append(count).append(" ").append(stats);
    if (!extra.empty()) line.append(" ").append(extra);
  }
  return line;
}

void Progress::Draw(int64_t done, double now, std::string_view extra) {
  const std::string text = Text(done, now, extra);
  if (mode_ == Mode::kTerminal) {
    // Pads over what is left of a longer previous line.
    std::string line = "\r";
    line.append(text);
    if (text.size() < last_width_) line.append(last_width_ - text.size(), ' ');
    last_width_ = text.size();
    std::fputs(line.c_str(), options_.out);
  } else {
    std::fprintf(options_.out, "%s\n", text.c_str());
  }
  std::fflush(options_.out);
  last_draw_ = now;
}

void Progress::Update(int64_t done, std::string_view extra) {
  if (finished_) return;
  const double now = options_.clock();
  if (!started_) {
    started_ = true;
    start_time_ = now;
    start_done_ = done;
    last_draw_ = now;
    // A terminal shows the bar at once; lines wait for the first interval.
    if (mode_ == Mode::kTerminal) Draw(done, now, extra);
  }
  last_done_ = done;
  if (extra != last_extra_) last_extra_ = std::string(extra);
  const double interval = mode_ == Mode::kTerminal ? options_.redraw_interval
                                                   : options_.line_interval;
  if (now - last_draw_ >= interval) Draw(done, now, extra);
}

void Progress::Finish(std::string_view extra) {
  if (finished_) return;
  const double now = options_.clock();
  if (!started_) {
    started_ = true;
    start_time_ = now;
  }
  Draw(last_done_, now, extra);
  if (mode_ == Mode::kTerminal) std::fputs("\n", options_.out);
  std::fflush(options_.out);
  finished_ = true;
}

}  // namespace inflow::tools
