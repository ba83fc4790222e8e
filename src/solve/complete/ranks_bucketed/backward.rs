//! The backward step of the bucketed solver on ranks: the values of the
//! next-layer buckets of other ranks fetched round by round, each rank's
//! buckets scored from their moves' ids.

use super::message::{garbled, pack16, unpack16};
use super::{bucket_owner, class_starts, HashMap, Owned, Solve, FETCH_STATES};
use crate::core::layout::RecordLayout;
use crate::core::Progress;
use crate::solve::bucketed::{score_states, ClassEdges, Values};
use crate::solve::complete::buckets::Bucketed;
use crate::solve::complete::cell::Cell;
use crate::solve::complete::error::SolveError;
use crate::solve::ranks::{human_bytes, Counted, Exchange};

/// The backward pass: scores every state of this rank's buckets; the bytes
/// all ranks sent while scoring each layer.
pub(super) fn score_layers<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &mut HashMap<u32, Owned>,
    by_layer: &[Vec<u32>],
    layout: &RecordLayout,
    progress: &dyn Progress,
) -> Result<Vec<u64>, SolveError> {
    let ex = solve.ex;
    let layers = by_layer.len();
    let before = ex.total()?;
    let mut bytes = vec![0u64; layers];
    progress.start_phase("backward", layers as u64);
    for k in (0..layers).rev() {
        let sizes = sizes(ex, buckets, by_layer.get(k + 1))?;
        let groups = fetch_groups(solve, buckets, &by_layer[k], &sizes);
        let rounds = ex.all_gather(vec![groups.len() as u64])?;
        let rounds = rounds.into_iter().max().unwrap_or(0) as usize;
        for r in 0..rounds {
            let (mine, wanted) = groups
                .get(r)
                .map_or((&[][..], &[][..]), |g| (&g.0[..], &g.1[..]));
            let fetched = fetch(ex, buckets, wanted)?;
            for &b in mine {
                let values = score_bucket(solve, buckets, &fetched, b, k, layout)?;
                if let Some(o) = buckets.get_mut(&b) {
                    o.values = values;
                    o.ids = Vec::new();
                }
            }
        }
        let total = ex.total()?;
        bytes[k] = total - before - bytes.iter().sum::<u64>();
        progress.status(&format!("{} exchanged", human_bytes(total)));
        progress.advance(1);
    }
    progress.finish_phase();
    Ok(bytes)
}

/// The sizes of the buckets of the next layer, every rank's (a collective
/// call, with `next` this rank's buckets of it, `None` past the last
/// layer): to bound what a round fetches.
fn sizes(
    ex: &Counted<'_>,
    buckets: &HashMap<u32, Owned>,
    next: Option<&Vec<u32>>,
) -> Result<HashMap<u32, usize>, SolveError> {
    let Some(next) = next else {
        return Ok(HashMap::default());
    };
    let mine: Vec<u64> = next
        .iter()
        .flat_map(|&t| [u64::from(t), buckets[&t].keys.len() as u64])
        .collect();
    Ok(ex
        .all_gather(mine)?
        .chunks_exact(2)
        .map(|p| (p[0] as u32, p[1] as usize))
        .collect())
}

/// This rank's buckets `layer` in groups whose other ranks' targets hold
/// at most [`FETCH_STATES`] states (a bucket alone may need more), by the
/// targets' `sizes`: each group with the other ranks' buckets it reads.
fn fetch_groups<G: ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &HashMap<u32, Owned>,
    layer: &[u32],
    sizes: &HashMap<u32, usize>,
) -> Vec<(Vec<u32>, Vec<u32>)> {
    let ranks = solve.ex.size();
    let me = solve.ex.rank();
    let classes = solve.scheme.classes();
    let mut groups: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    let mut group: (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let mut states = 0usize;
    for &b in layer {
        let kinds = &buckets[&b].kinds;
        let remote = (0..classes)
            .filter(|&c| matches!(kinds.get(c), Some(Some(_))))
            .map(|c| solve.scheme.next(b, c))
            .filter(|&t| bucket_owner(t, ranks) != me);
        let mut more = Vec::new();
        for t in remote {
            if !group.1.contains(&t) && !more.contains(&t) {
                more.push(t);
            }
        }
        let weight: usize = more
            .iter()
            .map(|t| sizes.get(t).copied().unwrap_or(0))
            .sum();
        if !group.0.is_empty() && states + weight > FETCH_STATES {
            groups.push(std::mem::take(&mut group));
            states = 0;
        }
        states += weight;
        group.1.extend(more);
        group.0.push(b);
    }
    if !group.0.is_empty() {
        groups.push(group);
    }
    groups
}

/// The values of bucket `b` of layer `k`, from its moves' ids and the
/// values of the buckets they lead to: this rank's, or `fetched`.
fn score_bucket<G: Bucketed + ?Sized>(
    solve: &Solve<'_, G>,
    buckets: &HashMap<u32, Owned>,
    fetched: &HashMap<u32, Values>,
    b: u32,
    k: usize,
    layout: &RecordLayout,
) -> Result<Values, SolveError> {
    let classes = solve.scheme.classes();
    let o = &buckets[&b];
    let at = class_starts(&o.moves, classes);
    score_states(
        solve.game,
        &o.keys,
        &o.same,
        |c| {
            let Some(&Some(kind)) = o.kinds.get(c) else {
                return Ok(None);
            };
            let t = solve.scheme.next(b, c);
            let target = match buckets.get(&t) {
                Some(own) => &own.values,
                None => fetched.get(&t).ok_or(SolveError::MissingState {
                    state: o.keys.first().copied().unwrap_or(0),
                })?,
            };
            Ok(Some(ClassEdges {
                ids: &o.ids[at[c]..at[c + 1]],
                target,
                kind,
            }))
        },
        classes,
        k,
        layout,
    )
}

/// Asks the owners of the buckets `wanted` for their values and answers
/// every other rank's asks from `buckets` (a collective call). A bucket's
/// values go as its palette and a byte a state, or as two bytes a state
/// when they do not fit a palette.
fn fetch(
    ex: &Counted<'_>,
    buckets: &HashMap<u32, Owned>,
    wanted: &[u32],
) -> Result<HashMap<u32, Values>, SolveError> {
    let ranks = ex.size();
    let mut asks = vec![Vec::new(); ranks];
    for &t in wanted {
        asks[bucket_owner(t, ranks)].push(u64::from(t));
    }
    let asked = ex.all_to_all(asks)?;
    let mut replies = vec![Vec::new(); ranks];
    for (r, ts) in asked.iter().enumerate() {
        for &t in ts {
            let v = u32::try_from(t)
                .ok()
                .and_then(|t| buckets.get(&t))
                .map(|o| &o.values)
                .ok_or_else(|| {
                    garbled(&format!("bucket {t} asked of a rank that does not hold it"))
                })?;
            let out = &mut replies[r];
            out.push(t);
            out.push(v.len() as u64);
            out.push(v.palette.len() as u64);
            if v.plain.is_empty() {
                pack16(out, v.palette.iter().map(|c| c.0));
                out.extend(v.codes.chunks(8).map(|c| {
                    c.iter()
                        .rev()
                        .fold(0u64, |w, &code| w << 8 | u64::from(code))
                }));
            } else {
                pack16(out, v.plain.iter().map(|c| c.0));
            }
        }
    }
    let mut fetched = HashMap::default();
    for message in ex.all_to_all(replies)? {
        let mut rest = &message[..];
        while let [t, n, p, tail @ ..] = rest {
            let n = usize::try_from(*n).unwrap_or(usize::MAX);
            let p = usize::try_from(*p).unwrap_or(usize::MAX);
            let values = if p == 0 && n > 0 {
                let (plain, after) = unpack16(tail, n)?;
                rest = after;
                Values {
                    plain: plain.into_iter().map(Cell).collect(),
                    ..Values::default()
                }
            } else {
                let (palette, after) = unpack16(tail, p)?;
                let (words, after) = after
                    .split_at_checked(n.div_ceil(8))
                    .ok_or_else(|| garbled("a bucket's values are cut short"))?;
                rest = after;
                let mut codes: Vec<u8> = words
                    .iter()
                    .flat_map(|&w| (0..8).map(move |i| (w >> (8 * i)) as u8))
                    .collect();
                codes.truncate(n);
                if codes.iter().any(|&c| usize::from(c) >= palette.len()) {
                    return Err(garbled("a bucket's values are not in its palette"));
                }
                Values {
                    codes,
                    palette: palette.into_iter().map(Cell).collect(),
                    plain: Vec::new(),
                }
            };
            fetched.insert(*t as u32, values);
        }
    }
    Ok(fetched)
}
