//! The units DAG of `units.json`: layers from upstream to downstream,
//! cycles named with their members, unknown dependencies, duplicate ids,
//! and the seed's id and contract-hash patterns.
//!
//! Every step is linear in units plus edges and iterative (no recursion), so
//! a hostile `units.json` with 100,000 units in one chain neither blows the
//! stack nor takes quadratic time.

use std::collections::{HashMap, HashSet};

use compact_str::CompactString;

use crate::model::{Unit, UnknownRef};

/// One entry of the graph: an id and the ids it depends on.
pub(crate) trait Node {
    fn id(&self) -> &str;
    fn deps(&self) -> impl Iterator<Item = &str>;
}

impl Node for (String, Vec<String>) {
    fn id(&self) -> &str {
        &self.0
    }
    fn deps(&self) -> impl Iterator<Item = &str> {
        self.1.iter().map(String::as_str)
    }
}

impl Node for Unit {
    fn id(&self) -> &str {
        &self.id
    }
    fn deps(&self) -> impl Iterator<Item = &str> {
        self.depends_on.iter().map(CompactString::as_str)
    }
}

/// The graph facts of a list of units, in file order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Analysis {
    /// The layer of each input entry: 0 without dependencies, else one more
    /// than its deepest dependency; `None` on or behind a cycle.
    pub layers: Vec<Option<usize>>,
    /// Each cycle's members, in dependency order, starting with the member
    /// that comes first in the file.
    pub cycles: Vec<Vec<String>>,
    pub unknown_refs: Vec<UnknownRef>,
    /// Ids that occur more than once (each named once, in file order).
    pub duplicates: Vec<String>,
    /// How many layers the graph has.
    pub layer_count: usize,
    /// The entries that depend on each entry's id, in file order (indices
    /// into the input): `downstream[offsets[i]..offsets[i + 1]]`, where `i`
    /// is the entry's node, `node[entry]`.
    pub node: Vec<u32>,
    /// The first entry of each node.
    pub first: Vec<u32>,
    pub down_offsets: Vec<u32>,
    pub downstream: Vec<u32>,
}

impl Analysis {
    /// The entries depending on entry `e` (file order, each entry once).
    pub(crate) fn downstream_of(&self, e: usize) -> &[u32] {
        let Some(&n) = self.node.get(e) else {
            return &[];
        };
        let n = n as usize;
        match (self.down_offsets.get(n), self.down_offsets.get(n + 1)) {
            (Some(&a), Some(&b)) => self.downstream.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Not placed by Kahn's algorithm (on or behind a cycle).
const NONE: u32 = u32::MAX;

/// A graph in compressed rows: the neighbours of node `i` are
/// `to[at[i]..at[i + 1]]`. Four bytes an edge, whatever the number of nodes.
struct Rows {
    at: Vec<u32>,
    to: Vec<u32>,
}

impl Rows {
    /// From `(from, to)` pairs sorted by `from` (each row keeps their order).
    fn from_sorted(n: usize, pairs: &[(u32, u32)]) -> Rows {
        let mut at = vec![0u32; n + 1];
        for &(f, _) in pairs {
            at[f as usize + 1] += 1;
        }
        for i in 0..n {
            at[i + 1] += at[i];
        }
        Rows {
            at,
            to: pairs.iter().map(|&(_, t)| t).collect(),
        }
    }

    fn row(&self, i: usize) -> &[u32] {
        &self.to[self.at[i] as usize..self.at[i + 1] as usize]
    }
}

/// Analyse `units` (in file order). Entries sharing an id are one node (its
/// dependencies are the union). Memory is a few words per unit and per
/// edge: a units.json of 200,000 units costs a few megabytes here.
pub(crate) fn analyze<N: Node>(units: &[N]) -> Analysis {
    let mut index: HashMap<&str, u32> = HashMap::with_capacity(units.len());
    // The first entry of each node.
    let mut first: Vec<u32> = Vec::new();
    let mut node: Vec<u32> = Vec::with_capacity(units.len());
    let mut duplicates = Vec::new();
    let mut dup_seen = HashSet::new();
    for (e, u) in units.iter().enumerate() {
        let id = u.id();
        match index.get(id) {
            Some(&j) => {
                node.push(j);
                if dup_seen.insert(id) {
                    duplicates.push(id.to_owned());
                }
            }
            None => {
                let j = first.len() as u32;
                index.insert(id, j);
                first.push(e as u32);
                node.push(j);
            }
        }
    }
    let n = first.len();
    let first_entry = first.clone();
    let id_of = |j: u32| units[first_entry[j as usize] as usize].id();
    // (node, dependency) and (dependency, entry) pairs.
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut down: Vec<(u32, u32)> = Vec::new();
    let mut unknown_refs = Vec::new();
    let mut unknown_seen = HashSet::new();
    for (e, u) in units.iter().enumerate() {
        let i = node[e];
        for d in u.deps() {
            match index.get(d) {
                Some(&j) => {
                    edges.push((i, j));
                    down.push((j, e as u32));
                }
                None => {
                    if unknown_seen.insert((u.id(), d)) {
                        unknown_refs.push(UnknownRef {
                            unit: u.id().to_owned(),
                            depends_on: d.to_owned(),
                        });
                    }
                }
            }
        }
    }
    drop(index);
    // Deduplicated once at the end (a check per edge is quadratic in the
    // number of dependencies a unit lists).
    edges.sort_unstable();
    edges.dedup();
    let deps = Rows::from_sorted(n, &edges);
    let mut rev: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
    drop(edges);
    rev.sort_unstable();
    let dependents = Rows::from_sorted(n, &rev);
    drop(rev);
    // Downstream entries in file order, each once per dependency.
    down.sort_unstable();
    down.dedup();
    let down = Rows::from_sorted(n, &down);

    let node_layers = kahn(&deps, &dependents);
    drop(dependents);
    let cycles = cycles(&deps, &node_layers)
        .into_iter()
        .map(|c| c.into_iter().map(|i| id_of(i).to_owned()).collect())
        .collect();
    let layer_count = node_layers
        .iter()
        .filter(|&&l| l != NONE)
        .max()
        .map_or(0, |m| *m as usize + 1);
    let layers = node
        .iter()
        .map(|&j| {
            Some(node_layers[j as usize])
                .filter(|&l| l != NONE)
                .map(|l| l as usize)
        })
        .collect();
    Analysis {
        layers,
        cycles,
        unknown_refs,
        duplicates,
        layer_count,
        node,
        first,
        down_offsets: down.at,
        downstream: down.to,
    }
}

/// Layers by Kahn's algorithm; nodes never freed are on or behind a cycle.
fn kahn(deps: &Rows, dependents: &Rows) -> Vec<u32> {
    let n = deps.at.len() - 1;
    let mut waiting: Vec<u32> = (0..n).map(|i| deps.row(i).len() as u32).collect();
    let mut layer: Vec<u32> = vec![NONE; n];
    let mut depth = vec![0u32; n];
    let mut queue: Vec<u32> = (0..n as u32)
        .filter(|&i| waiting[i as usize] == 0)
        .collect();
    let mut head = 0;
    while head < queue.len() {
        let i = queue[head] as usize;
        head += 1;
        layer[i] = depth[i];
        for &m in dependents.row(i) {
            let m = m as usize;
            depth[m] = depth[m].max(depth[i] + 1);
            waiting[m] -= 1;
            if waiting[m] == 0 {
                queue.push(m as u32);
            }
        }
    }
    layer
}

/// The cycles among the nodes Kahn could not place: strongly connected
/// components (Tarjan, iterative) of two or more nodes, or one node that
/// depends on itself.
fn cycles(deps: &Rows, layers: &[u32]) -> Vec<Vec<u32>> {
    let n = layers.len();
    if layers.iter().all(|&l| l != NONE) {
        return Vec::new();
    }
    const UNSEEN: u32 = u32::MAX;
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut counter = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if layers[root] != NONE || order[root] != UNSEEN {
            continue;
        }
        // (node, next edge to look at)
        let mut work: Vec<(u32, usize)> = vec![(root as u32, 0)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            let vi = v as usize;
            if let Some(&w) = deps.row(vi).get(*edge) {
                *edge += 1;
                let wi = w as usize;
                if layers[wi] != NONE {
                    continue;
                }
                if order[wi] == UNSEEN {
                    order[wi] = counter;
                    low[wi] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[wi] = true;
                    work.push((w, 0));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(order[wi]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                let pi = parent as usize;
                low[pi] = low[pi].min(low[vi]);
            }
            if low[vi] == order[vi] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 || deps.row(vi).contains(&v) {
                    out.push(walk_order(deps, members));
                }
            }
        }
    }
    out.sort_by_key(|c| c.first().copied());
    out
}

/// The members of one component in dependency order: from the member first
/// in the file, follow dependencies inside the component (the earliest
/// unvisited one each time); members the walk misses follow in file order.
fn walk_order(deps: &Rows, mut members: Vec<u32>) -> Vec<u32> {
    members.sort_unstable();
    let inside: HashSet<u32> = members.iter().copied().collect();
    let mut seen = HashSet::new();
    let mut path = Vec::with_capacity(members.len());
    let mut cur = members[0];
    loop {
        seen.insert(cur);
        path.push(cur);
        let next = deps
            .row(cur as usize)
            .iter()
            .copied()
            .filter(|d| inside.contains(d) && !seen.contains(d))
            .min();
        match next {
            Some(d) => cur = d,
            None => break,
        }
    }
    path.extend(members.into_iter().filter(|m| !seen.contains(m)));
    path
}

/// The seed's unit id pattern: `^[a-z]+(-[a-z]+)*-(be|fe|mw|db)$`.
pub(crate) fn valid_unit_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    parts.len() >= 2
        && matches!(parts.last(), Some(&("be" | "fe" | "mw" | "db")))
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()))
}

/// The seed's contract hash pattern: `^sha256:[a-f0-9]{16}$`.
pub(crate) fn valid_contract_hash(h: &str) -> bool {
    h.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 16 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(spec: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        spec.iter()
            .map(|(id, deps)| {
                (
                    (*id).to_owned(),
                    deps.iter().map(|d| (*d).to_owned()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn layers_run_upstream_to_downstream() {
        // p-restock's graph.
        let a = analyze(&units(&[
            ("sku-db", &[]),
            ("auth-mw", &[]),
            ("sales-sync-be", &["sku-db"]),
            ("forecast-be", &["sales-sync-be"]),
            ("restock-plan-be", &["forecast-be", "auth-mw"]),
            ("restock-fe", &["restock-plan-be", "auth-mw"]),
        ]));
        assert_eq!(
            a.layers,
            vec![Some(0), Some(0), Some(1), Some(2), Some(3), Some(4)]
        );
        assert_eq!(a.layer_count, 5);
        assert!(a.cycles.is_empty() && a.unknown_refs.is_empty() && a.duplicates.is_empty());
    }

    #[test]
    fn cycles_unknown_refs_and_duplicates() {
        // p-over-budget's graph.
        let a = analyze(&units(&[
            ("invoice-db", &[]),
            ("tax-be", &["invoice-db", "ledger-be"]),
            ("ledger-be", &["tax-be"]),
            ("invoice-be", &["invoice-db"]),
            ("invoice-be", &["invoice-db", "tax-be"]),
            ("export-fe", &["invoice-be", "payment-gateway-be"]),
            ("pdfExport-be", &["invoice-be"]),
        ]));
        assert_eq!(
            a.cycles,
            vec![vec!["tax-be".to_owned(), "ledger-be".to_owned()]]
        );
        assert_eq!(
            a.unknown_refs,
            vec![UnknownRef {
                unit: "export-fe".into(),
                depends_on: "payment-gateway-be".into()
            }]
        );
        assert_eq!(a.duplicates, vec!["invoice-be".to_owned()]);
        // invoice-be (both entries, merged) depends on tax-be, which is on
        // the cycle: everything downstream of it has no layer.
        assert_eq!(a.layers, vec![Some(0), None, None, None, None, None, None]);
        assert_eq!(a.layer_count, 1);
    }

    #[test]
    fn self_loops_and_longer_cycles_in_order() {
        let a = analyze(&units(&[
            ("a-be", &["c-be"]),
            ("b-be", &["a-be"]),
            ("c-be", &["b-be"]),
            ("d-be", &["d-be"]),
            ("e-be", &[]),
        ]));
        assert_eq!(
            a.cycles,
            vec![
                vec!["a-be".to_owned(), "c-be".to_owned(), "b-be".to_owned()],
                vec!["d-be".to_owned()],
            ]
        );
        assert_eq!(a.layers[4], Some(0));
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 100_000;
        let spec: Vec<(String, Vec<String>)> = (0..n)
            .map(|i| {
                (
                    format!("u{i}"),
                    if i == 0 {
                        vec![format!("u{}", n - 1)]
                    } else {
                        vec![format!("u{}", i - 1)]
                    },
                )
            })
            .collect();
        let a = analyze(&spec);
        assert_eq!(a.cycles.len(), 1);
        assert_eq!(a.cycles[0].len(), n);
        let chain: Vec<(String, Vec<String>)> = (0..n)
            .map(|i| {
                (
                    format!("u{i}"),
                    if i == 0 {
                        vec![]
                    } else {
                        vec![format!("u{}", i - 1)]
                    },
                )
            })
            .collect();
        assert_eq!(analyze(&chain).layer_count, n);
    }

    #[test]
    fn id_and_hash_patterns() {
        for ok in ["sku-db", "restock-plan-be", "a-fe", "auth-mw"] {
            assert!(valid_unit_id(ok), "{ok}");
        }
        for bad in [
            "pdfExport-be",
            "be",
            "-be",
            "x--be",
            "x-api",
            "x1-be",
            "sku-db-",
        ] {
            assert!(!valid_unit_id(bad), "{bad}");
        }
        assert!(valid_contract_hash("sha256:327ab5f074c40f2d"));
        for bad in [
            "sha256:7f3a...",
            "sha256:327AB5F074C40F2D",
            "327ab5f074c40f2d",
            "sha256:327ab5f074c40f2d0",
        ] {
            assert!(!valid_contract_hash(bad), "{bad}");
        }
    }
}
