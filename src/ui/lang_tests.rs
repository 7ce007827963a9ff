//! The console's frame, dialogs, list and inbox in Simplified Chinese (issue 11 §2).
