//! The set of keys a scan by key has met: every key's bytes in one arena,
//! and an open-addressing table of one word per slot (the key's offset, a
//! 16-bit tag of its hash, and one flag). A set of 4.5 million bug ids costs
//! about 16 bytes a key plus the key itself, where a map of boxed keys cost
//! about 90 (420 MB for a 282 MB bugs.ndjson).

use std::hash::{BuildHasher, Hasher};

/// Keys and one flag each.
pub(crate) struct KeySet {
    hash: KeyHash,
    /// Each key as a 4-byte little-endian length and its bytes.
    arena: Vec<u8>,
    /// 0 empty; else tag (16 bits) | offset + 1 (47 bits) | flag (1 bit).
    slots: Vec<u64>,
    len: usize,
}

const OFFSET_BITS: u32 = 47;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;

impl Default for KeySet {
    fn default() -> Self {
        Self::new()
    }
}

impl KeySet {
    pub(crate) fn new() -> Self {
        KeySet {
            hash: KeyHash::new(),
            arena: Vec::new(),
            slots: vec![0; 16],
            len: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn hash_of(&self, key: &[u8]) -> u64 {
        let mut h = self.hash.build_hasher();
        h.write(key);
        h.finish()
    }

    fn key_at(&self, offset: usize) -> &[u8] {
        let Some(len) = self.arena.get(offset..offset + 4) else {
            return &[];
        };
        let mut n = [0u8; 4];
        n.copy_from_slice(len);
        let n = u32::from_le_bytes(n) as usize;
        self.arena.get(offset + 4..offset + 4 + n).unwrap_or(&[])
    }

    /// The slot holding `key`, or the empty slot where it would go.
    fn find(&self, key: &[u8], h: u64) -> usize {
        let mask = self.slots.len() - 1;
        let tag = h >> 48;
        let mut i = (h as usize) & mask;
        loop {
            let s = self.slots[i];
            if s == 0 {
                return i;
            }
            if s >> 48 == tag {
                let offset = ((s >> 1) & OFFSET_MASK) as usize - 1;
                if self.key_at(offset) == key {
                    return i;
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The flag of `key`, if the set holds it.
    pub(crate) fn get(&self, key: &[u8]) -> Option<bool> {
        let s = self.slots[self.find(key, self.hash_of(key))];
        (s != 0).then_some(s & 1 == 1)
    }

    /// Add `key` with `flag` (a key already there keeps its first flag).
    /// Keys longer than 4 GB, or an arena past 2^47 bytes, are not kept.
    pub(crate) fn insert(&mut self, key: &[u8], flag: bool) {
        let Ok(n) = u32::try_from(key.len()) else {
            return;
        };
        if (self.arena.len() + 4 + key.len()) as u64 >= OFFSET_MASK {
            return;
        }
        let h = self.hash_of(key);
        let i = self.find(key, h);
        if self.slots[i] != 0 {
            return;
        }
        let offset = self.arena.len() as u64;
        self.arena.extend_from_slice(&n.to_le_bytes());
        self.arena.extend_from_slice(key);
        self.slots[i] = (h >> 48) << 48 | (offset + 1) << 1 | u64::from(flag);
        self.len += 1;
        // At most three quarters full.
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let bigger = vec![0; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for s in old.into_iter().filter(|&s| s != 0) {
            let offset = ((s >> 1) & OFFSET_MASK) as usize - 1;
            let h = self.hash_of(self.key_at(offset));
            let mut i = (h as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }
}

/// A fast hash for the short keys of a scan (one multiply per 8 bytes),
/// seeded per process so crafted keys cannot be made to collide ahead of
/// time. SipHash, std's default, was a tenth of a large scan's time.
#[derive(Clone)]
struct KeyHash(u64);

impl KeyHash {
    fn new() -> Self {
        KeyHash(std::collections::hash_map::RandomState::new().hash_one(0x6c6f_6f70_6465_636b_u64))
    }
}

impl BuildHasher for KeyHash {
    type Hasher = FoldHasher;
    fn build_hasher(&self) -> FoldHasher {
        FoldHasher(self.0)
    }
}

struct FoldHasher(u64);

impl FoldHasher {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    fn mix(&mut self, word: u64) {
        let m = u128::from(self.0 ^ word) * u128::from(Self::K);
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_every_key_once_with_its_first_flag() {
        let mut set = KeySet::new();
        let keys: Vec<String> = (0..10_000).map(|i| format!("bug-{i:08}")).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(set.get(k.as_bytes()), None);
            set.insert(k.as_bytes(), i % 3 == 0);
        }
        assert_eq!(set.len(), keys.len());
        for (i, k) in keys.iter().enumerate() {
            set.insert(k.as_bytes(), i % 3 != 0);
            assert_eq!(set.get(k.as_bytes()), Some(i % 3 == 0), "{k}");
        }
        assert_eq!(set.len(), keys.len());
        assert_eq!(set.get(b"bug-x"), None);
        set.insert(b"", true);
        assert_eq!(set.get(b""), Some(true));
        assert_eq!(set.len(), keys.len() + 1);
    }

    #[test]
    fn memory_is_a_few_words_a_key() {
        let mut set = KeySet::new();
        let n = 100_000;
        for i in 0..n {
            set.insert(format!("bug-{i:08}").as_bytes(), false);
        }
        let bytes = set.arena.len() + set.slots.len() * 8;
        // 12 bytes of key + 4 of length, and at most 8/3 slots of 8 bytes
        // (a table at most three quarters full, doubled when it fills).
        assert!(bytes <= n * (16 + 22), "{bytes} bytes for {n} keys");
    }
}
