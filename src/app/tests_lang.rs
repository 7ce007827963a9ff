//! Hints, help, the palette and status messages in Simplified Chinese (issue 11 §2).
