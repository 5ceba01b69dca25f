//! Per-call cost of the reader in one process, for bench/reader_calls.py: catalog() called again
//! (median), and load() with arguments over every command the persona's model may load (median of
//! the second pass).
//!
//!     cargo run --release --example reader_calls -- DIST PERSONA CALLS

use std::time::Instant;

use skillc_reader::{Dist, Env};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().collect();
    let (path, persona, calls) = (&argv[1], &argv[2], argv[3].parse::<usize>()?);
    let dist = Dist::open(path)?;
    dist.catalog(persona)?;
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        dist.catalog(persona)?;
        times.push(t.elapsed().as_nanos() as f64 / 1e3);
    }
    times.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let skills = dist.skills_in(persona, Env::Everywhere)?;
    let commands: Vec<String> = skills.into_iter().filter(|s| s.model).map(|s| s.command).collect();
    let loads = || -> Result<f64, skillc_reader::ReaderError> {
        let mut times = Vec::with_capacity(commands.len());
        for c in &commands {
            let t = Instant::now();
            dist.load(persona, c, Some("Jita 4-4"))?;
            times.push(t.elapsed().as_nanos() as f64 / 1e3);
        }
        times.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
        Ok(times[times.len() / 2])
    };
    loads()?;
    let per_load = loads()?;
    println!("{{\"catalog again\": {:.3}, \"load(args)\": {:.3}}}", times[calls / 2], per_load);
    Ok(())
}
