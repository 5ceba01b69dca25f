//! A catalog packed again at run time, for a stack of builds whose catalog no one build holds:
//! the budget's three strategies, as the compiler packs them (pack.py; docs/format.md §16.4).
//! Ranked without `budgets.priority`: a stack refuses a base that ranks by it. Lengths count
//! code points.

use std::collections::{BTreeMap, HashSet};

use crate::unicode::is_space;

const ELLIPSIS: char = '…';
/// shorten: below this a description says nothing; leave skills out instead.
const MIN_DESCRIPTION: usize = 16;
pub(crate) const STRATEGIES: [&str; 3] = ["drop", "shorten", "names-only"];
/// Packings, each with the room the last rendered catalog overran kept free.
const ROUNDS: usize = 8;

/// One entry the budget may list: its cost, and for the strategies that cut descriptions, the
/// description and the cost without one (-1 when not asked for).
pub(crate) struct Candidate {
    pub command: String,
    pub always: bool,
    pub cost: i64,
    pub description: String,
    pub bare: i64,
}

/// The included commands (in command order), the left out ones (in command order), and the
/// descriptions the packing changed, by command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Packed {
    pub included: Vec<String>,
    pub left_out: Vec<String>,
    pub descriptions: BTreeMap<String, String>,
}

fn points(text: &str) -> i64 {
    text.chars().count() as i64
}

/// The packing and the catalog it renders, packed again with room kept free while a rendered
/// catalog with changed descriptions came out longer than the budget (at most ROUNDS times).
pub(crate) fn fit(
    budget: i64,
    candidates: &[Candidate],
    frame_cost: &dyn Fn(usize) -> i64,
    strategy: &str,
    render: &dyn Fn(&Packed) -> String,
) -> (Packed, String) {
    let mut slack = 0;
    let mut round = 0;
    loop {
        let packed = pack(budget, candidates, frame_cost, strategy, slack);
        let text = render(&packed);
        let length = points(&text);
        round += 1;
        if length <= budget || packed.descriptions.is_empty() || round == ROUNDS {
            return (packed, text);
        }
        slack += length - budget;
    }
}

/// Which entries fit: first without the notice of skills left out, and when some are left out,
/// again with room for the notice of every candidate left out.
fn pack(
    budget: i64,
    candidates: &[Candidate],
    frame_cost: &dyn Fn(usize) -> i64,
    strategy: &str,
    slack: i64,
) -> Packed {
    let ranked: Vec<&Candidate> =
        candidates.iter().filter(|c| c.always).chain(candidates.iter().filter(|c| !c.always)).collect();
    let fit_in = |room: i64| match strategy {
        "drop" => drop(room, &ranked),
        "shorten" => shorten(room, &ranked),
        _ => names_only(room, &ranked),
    };
    let room = budget - slack - frame_cost(0);
    let over = strategy == "drop" && ranked.iter().map(|c| c.cost).sum::<i64>() > room;
    let mut packed = if over { Packed::default() } else { fit_in(room) };
    if over || !packed.left_out.is_empty() {
        packed = fit_in(budget - slack - frame_cost(candidates.len()));
    }
    let chosen: HashSet<&String> = packed.included.iter().collect();
    packed.included =
        candidates.iter().filter(|c| chosen.contains(&c.command)).map(|c| c.command.clone()).collect();
    packed.left_out.sort();
    packed
}

fn drop(room: i64, ranked: &[&Candidate]) -> Packed {
    let mut room = room - ranked.iter().filter(|c| c.always).map(|c| c.cost).sum::<i64>();
    let mut packed = Packed::default();
    for c in ranked {
        if c.always {
            packed.included.push(c.command.clone());
        } else if c.cost <= room {
            packed.included.push(c.command.clone());
            room -= c.cost;
        } else {
            packed.left_out.push(c.command.clone());
        }
    }
    packed
}

fn all_of(ranked: &[&Candidate]) -> Packed {
    Packed { included: ranked.iter().map(|c| c.command.clone()).collect(), ..Packed::default() }
}

fn shorten(room: i64, ranked: &[&Candidate]) -> Packed {
    if ranked.iter().map(|c| c.cost).sum::<i64>() <= room {
        return all_of(ranked);
    }
    let mut kept: Vec<&Candidate> = ranked.to_vec();
    let mut left_out = Vec::new();
    let limit = loop {
        let limit = longest_fitting(room, &kept);
        if limit.is_some() || kept.iter().all(|c| c.always) {
            break limit;
        }
        // the lowest ranked that is not always-on goes first
        let at = kept.iter().rposition(|c| !c.always).expect("one is not always-on");
        left_out.push(kept.remove(at).command.clone());
    };
    let limit = limit.unwrap_or(MIN_DESCRIPTION);
    let descriptions = kept
        .iter()
        .filter(|c| !c.always && c.description.chars().count() > limit)
        .map(|c| (c.command.clone(), cut(&c.description, limit)))
        .collect();
    Packed { included: kept.iter().map(|c| c.command.clone()).collect(), left_out, descriptions }
}

/// The longest description length at which every kept entry fits; None below MIN_DESCRIPTION.
fn longest_fitting(room: i64, kept: &[&Candidate]) -> Option<usize> {
    let lengths: Vec<usize> = kept.iter().map(|c| c.description.chars().count()).collect();
    let total = |limit: usize| -> i64 {
        kept.iter()
            .zip(&lengths)
            .map(
                |(c, &length)| {
                    if c.always || length <= limit {
                        c.cost
                    } else {
                        c.cost - (length - limit) as i64 + 1
                    }
                },
            )
            .sum()
    };
    let (mut low, mut high) = (MIN_DESCRIPTION, lengths.iter().copied().max().unwrap_or(0));
    if total(low) > room {
        return None;
    }
    while low < high {
        // total() grows with the limit: the last limit that fits
        let mid = (low + high + 1) / 2;
        if total(mid) <= room {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    Some(low)
}

/// The first `limit` code points, trailing white space removed, then `…`.
fn cut(text: &str, limit: usize) -> String {
    let head: String = text.chars().take(limit).collect();
    let mut out = head.trim_end_matches(is_space).to_string();
    out.push(ELLIPSIS);
    out
}

fn names_only(room: i64, ranked: &[&Candidate]) -> Packed {
    let mut total: i64 = ranked.iter().map(|c| c.cost).sum();
    if total <= room {
        return all_of(ranked);
    }
    let bare = |c: &Candidate| if c.bare >= 0 { c.bare } else { c.cost };
    let mut descriptions = BTreeMap::new();
    for c in ranked.iter().rev() {
        // lowest rank first
        if total <= room {
            break;
        }
        if !c.always && bare(c) < c.cost {
            total -= c.cost - bare(c);
            descriptions.insert(c.command.clone(), String::new());
        }
    }
    let mut kept: Vec<&Candidate> = ranked.to_vec();
    let mut left_out = Vec::new();
    for c in ranked.iter().rev() {
        if total <= room {
            break;
        }
        if !c.always {
            total -= bare(c);
            kept.retain(|k| k.command != c.command);
            left_out.push(c.command.clone());
            descriptions.remove(&c.command);
        }
    }
    Packed { included: kept.iter().map(|c| c.command.clone()).collect(), left_out, descriptions }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(command: &str, cost: i64, description: &str) -> Candidate {
        Candidate {
            command: command.into(),
            always: command.starts_with('!'),
            cost,
            description: description.into(),
            bare: cost - description.chars().count() as i64,
        }
    }

    #[test]
    fn each_strategy_packs_as_the_compiler_does() {
        let long = "a description of thirty-two ch.";
        let cs = vec![candidate("!a", 40, long), candidate("b", 40, long), candidate("c", 40, long)];
        let frame = |n: usize| if n == 0 { 10 } else { 20 };
        let render = |_: &Packed| String::new();
        let (p, _) = fit(100, &cs, &frame, "drop", &render);
        assert_eq!(
            (p.included, p.left_out),
            (vec!["!a".to_string(), "b".to_string()], vec!["c".to_string()])
        );
        let (p, _) = fit(100, &cs, &frame, "shorten", &render);
        assert_eq!((p.included, p.descriptions.len()), (vec!["!a".to_string(), "b".to_string()], 0));
        let (p, _) = fit(80, &cs, &frame, "shorten", &render);
        assert_eq!(
            (p.included, p.left_out),
            (vec!["!a".to_string()], vec!["b".to_string(), "c".to_string()])
        );
        let (p, _) = fit(110, &cs, &frame, "shorten", &render);
        assert_eq!(p.included, ["!a", "b", "c"]);
        assert_eq!(p.descriptions["b"], "a description of thi…");
        let (p, _) = fit(100, &cs, &frame, "names-only", &render);
        assert_eq!(p.included, ["!a", "b", "c"]);
        assert_eq!(p.descriptions.keys().collect::<Vec<_>>(), ["c"]);
        assert_eq!(cut("ab  cd", 3), "ab…");
    }
}
