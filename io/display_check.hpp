// Whether this process can render ParaView images, asked once before the first step by the
// Catalyst adaptor when a script renders. Kept apart from the adaptor because Xlib's macros
// (None, Status, Bool) collide with ordinary C++ names.
#pragma once

#include <string>

namespace sf {

/// A connection to the X display that ParaView will render on, held for the whole run.
///
/// ParaView renders on an X display unless it was built headless (EGL, OSMesa). VTK aborts the
/// process (an assertion and a stack trace) at the first image when the display does not open or
/// offers no visual for OpenGL, and ParaView's own test (vtkPVRenderingCapabilitiesInformation)
/// aborts the same way on the latter; so open() asks X directly.
///
/// Holding the connection matters too: an X server that resets when its last client leaves
/// (Xvfb without -noreset, as xvfb-run starts it) refuses connections while it resets, and
/// ParaView opens and closes the display to probe it before its render window connects. Measured
/// on ParaView 5.11 with `xvfb-run -a` and 2 ranks: 3 of 4 runs aborted with "bad X server
/// connection" before this connection was held, 0 of 8 after (2 and 4 ranks).
class RenderingDisplay {
public:
  RenderingDisplay() = default;
  RenderingDisplay(const RenderingDisplay&) = delete;
  RenderingDisplay& operator=(const RenderingDisplay&) = delete;
  ~RenderingDisplay();

  /// Connects; returns why this process cannot render, or "" when it can (always "" for a
  /// headless build).
  std::string open();

private:
  void* display_ = nullptr;  // Xlib's Display*, opaque here
};

}  // namespace sf
