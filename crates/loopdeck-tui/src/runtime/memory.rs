//! Giving freed memory back to the system after a reading of many projects.
//!
//! A reading of 10,000 projects builds the new model beside the old one and
//! frees the old one (and every parse made on the way) at once; glibc's
//! allocator keeps most of what is freed in its arenas, so the console's
//! resident memory stayed at the peak of its biggest reading. `malloc_trim`
//! returns the free pages of every arena (`bench/speed.py`'s memory row
//! says what it saves). Elsewhere (another libc or system) nothing is done.

/// A reading of at least this many projects is followed by a release.
pub(super) const MANY: usize = 1000;

/// Return the allocator's free pages to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(super) fn release() {
    // SAFETY: malloc_trim only walks glibc's own arenas under their locks;
    // it takes no pointer and leaves every live allocation in place.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Return the allocator's free pages to the system (nothing to do here).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(super) fn release() {}
