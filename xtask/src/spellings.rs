//! `cargo xtask bench --spellings KIND:SEED,…`: each game measured beside other
//! spellings of itself, written by `gdlc::scramble` into the bench's output directory,
//! so that the same run gives the plain file's figures and the scrambled files' side by
//! side (their ratio is what must not depend on spelling).
//!
//! Kinds: `all` (every symbol but the keywords and goal values renamed, numbers too, and
//! sentences and literals shuffled), `numbers` (the same with numbers kept: what
//! ggp-base's game server sends), `order` (shuffled only), `names` (renamed only).

use std::path::Path;

use gdlc::SourceFile;
use gdlc::scramble::{Options, scramble};

use crate::bench::{BenchGame, Origin};

/// One spelling: its kind's name, the seed, and the scrambler's options.
#[derive(Clone, Debug)]
pub struct Spelling {
    kind: &'static str,
    seed: u64,
    options: Options,
}

/// Reads `KIND:SEED,…` (see the module docs).
pub fn parse(list: &str) -> Result<Vec<Spelling>, String> {
    list.split(',')
        .map(|item| {
            let item = item.trim();
            let (kind, seed) = item
                .split_once(':')
                .ok_or_else(|| format!("spelling `{item}` is not KIND:SEED"))?;
            let seed: u64 = seed
                .parse()
                .map_err(|_| format!("spelling `{item}`: the seed `{seed}` is not a number"))?;
            let all = Options::all(seed);
            let (kind, options) = match kind {
                "all" => ("all", all),
                "numbers" => (
                    "numbers",
                    Options {
                        keep_numbers: true,
                        ..all
                    },
                ),
                "order" => (
                    "order",
                    Options {
                        rename: false,
                        ..all
                    },
                ),
                "names" => (
                    "names",
                    Options {
                        reorder: false,
                        ..all
                    },
                ),
                other => {
                    return Err(format!(
                        "unknown spelling kind `{other}` (all, numbers, order or names)"
                    ));
                }
            };
            Ok(Spelling {
                kind,
                seed,
                options,
            })
        })
        .collect()
}

/// `games`, each followed by its spellings, written to `dir/spellings/`.
pub fn with_spellings(
    games: Vec<BenchGame>,
    spellings: &[Spelling],
    dir: &Path,
) -> Result<Vec<BenchGame>, String> {
    if spellings.is_empty() {
        return Ok(games);
    }
    let dir = dir.join("spellings");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut out = Vec::with_capacity(games.len() * (spellings.len() + 1));
    for game in games {
        let text = std::fs::read_to_string(&game.path)
            .map_err(|e| format!("cannot read {}: {e}", game.path.display()))?;
        let file = SourceFile::new(game.shown.clone(), text);
        let mut variants = Vec::with_capacity(spellings.len());
        for spelling in spellings {
            let scrambled = scramble(&file, &spelling.options).map_err(|d| d.render(&file))?;
            let stem = format!("{}-{}{}", game.stem, spelling.kind, spelling.seed);
            let path = dir.join(format!("{stem}.kif"));
            std::fs::write(&path, scrambled)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            variants.push(BenchGame {
                label: format!(
                    "{} · {} spelling, seed {}",
                    game.label, spelling.kind, spelling.seed
                ),
                shown: path.display().to_string(),
                path,
                origin: Origin::File,
                stem,
            });
        }
        out.push(game);
        out.extend(variants);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_parse_and_bad_ones_say_why() {
        let spellings = parse("all:5, numbers:6,order:7,names:8").expect("parses");
        let kinds: Vec<&str> = spellings.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, ["all", "numbers", "order", "names"]);
        assert!(spellings[1].options.keep_numbers && !spellings[2].options.rename);
        assert!(!spellings[3].options.reorder && spellings[3].options.rename);
        assert!(parse("all").expect_err("no seed").contains("KIND:SEED"));
        assert!(
            parse("all:x")
                .expect_err("bad seed")
                .contains("not a number")
        );
        assert!(
            parse("upside:1")
                .expect_err("bad kind")
                .contains("unknown spelling kind")
        );
    }
}
