//! A project's tabs in Simplified Chinese at 80x24 and wide (issue 11 §2).
