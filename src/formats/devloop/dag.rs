//! The units DAG of `units.json`: layers from upstream to downstream,
//! cycles named with their members, unknown dependencies, duplicate ids,
//! and the seed's id and contract-hash patterns.
//!
//! Every step is linear in units plus edges and iterative (no recursion), so
//! a hostile `units.json` with 100,000 units in one chain neither blows the
//! stack nor takes quadratic time.

use std::collections::{HashMap, HashSet};

use crate::model::UnknownRef;

/// The graph facts of a list of units, in file order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Analysis {
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
}

/// Analyse `units`: each entry is an id and the ids it depends on. Entries
/// sharing an id are one node (its dependencies are the union).
pub fn analyze(units: &[(String, Vec<String>)]) -> Analysis {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut ids: Vec<&str> = Vec::new();
    let mut duplicates = Vec::new();
    let mut dup_seen = HashSet::new();
    for (id, _) in units {
        if index.contains_key(id.as_str()) {
            if dup_seen.insert(id.as_str()) {
                duplicates.push(id.clone());
            }
        } else {
            index.insert(id, ids.len());
            ids.push(id);
        }
    }
    let n = ids.len();
    // deps[i]: the known nodes node i depends on (deduplicated).
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut unknown_refs = Vec::new();
    let mut unknown_seen = HashSet::new();
    for (id, on) in units {
        let Some(&i) = index.get(id.as_str()) else {
            continue;
        };
        for d in on {
            match index.get(d.as_str()) {
                Some(&j) => deps[i].push(j),
                None => {
                    if unknown_seen.insert((id.as_str(), d.as_str())) {
                        unknown_refs.push(UnknownRef {
                            unit: id.clone(),
                            depends_on: d.clone(),
                        });
                    }
                }
            }
        }
    }
    // Deduplicated once at the end (a check per edge is quadratic in the
    // number of dependencies a unit lists).
    for d in &mut deps {
        d.sort_unstable();
        d.dedup();
    }
    let node_layers = kahn(&deps);
    let cycles = cycles(&deps, &node_layers)
        .into_iter()
        .map(|c| c.into_iter().map(|i| ids[i].to_owned()).collect())
        .collect();
    let layer_count = node_layers.iter().flatten().max().map_or(0, |m| m + 1);
    let layers = units
        .iter()
        .map(|(id, _)| index.get(id.as_str()).and_then(|&i| node_layers[i]))
        .collect();
    Analysis {
        layers,
        cycles,
        unknown_refs,
        duplicates,
        layer_count,
    }
}

/// Layers by Kahn's algorithm; nodes never freed are on or behind a cycle.
fn kahn(deps: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = deps.len();
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting: Vec<usize> = vec![0; n];
    for (i, ds) in deps.iter().enumerate() {
        waiting[i] = ds.len();
        for &d in ds {
            dependents[d].push(i);
        }
    }
    let mut layer: Vec<Option<usize>> = vec![None; n];
    let mut depth = vec![0usize; n];
    let mut queue: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut head = 0;
    while head < queue.len() {
        let i = queue[head];
        head += 1;
        layer[i] = Some(depth[i]);
        for &m in &dependents[i] {
            depth[m] = depth[m].max(depth[i] + 1);
            waiting[m] -= 1;
            if waiting[m] == 0 {
                queue.push(m);
            }
        }
    }
    layer
}

/// The cycles among the nodes Kahn could not place: strongly connected
/// components (Tarjan, iterative) of two or more nodes, or one node that
/// depends on itself.
fn cycles(deps: &[Vec<usize>], layers: &[Option<usize>]) -> Vec<Vec<usize>> {
    let n = deps.len();
    const UNSEEN: usize = usize::MAX;
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut counter = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if layers[root].is_some() || order[root] != UNSEEN {
            continue;
        }
        // (node, next edge to look at)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        order[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if let Some(&w) = deps[v].get(*edge) {
                *edge += 1;
                if layers[w].is_some() {
                    continue;
                }
                if order[w] == UNSEEN {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 || deps[v].contains(&v) {
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
fn walk_order(deps: &[Vec<usize>], mut members: Vec<usize>) -> Vec<usize> {
    members.sort_unstable();
    let inside: HashSet<usize> = members.iter().copied().collect();
    let mut seen = HashSet::new();
    let mut path = Vec::with_capacity(members.len());
    let mut cur = members[0];
    loop {
        seen.insert(cur);
        path.push(cur);
        let next = deps[cur]
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
pub fn valid_unit_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    parts.len() >= 2
        && matches!(parts.last(), Some(&("be" | "fe" | "mw" | "db")))
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()))
}

/// The seed's contract hash pattern: `^sha256:[a-f0-9]{16}$`.
pub fn valid_contract_hash(h: &str) -> bool {
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
