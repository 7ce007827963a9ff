//! `[[host]]` and `--host`: read into the core's host descriptions, each
//! mistake named with its host, what is wrong and its table's line.

use crate::config::*;
use loopdeck_core::fleet::HostSpec;

fn arg(text: &str) -> HostArg {
    parse_host_arg(text).unwrap()
}

#[test]
fn a_host_table_reads_every_key() {
    let c = parse(
        "roots = [\"/x\"]\n\n[[host]]\nname = \"build-1\"\nssh = \"ops@build1\"\nroots = [\"~/work\", \"/srv/a b\"]\nwritable = true\ncommand = \"~/bin/loopdeck\"\nssh_args = [\"-J\", \"bastion\"]\n\n[[host]]\nname = \"lab\"\nssh = \"lab\"\nroots = [\"/srv\"]\n",
        "c.toml",
    )
    .unwrap();
    let hosts = hosts_from_args(&[], &c).unwrap();
    assert_eq!(
        hosts,
        vec![
            HostSpec {
                writable: true,
                command: Some("~/bin/loopdeck".into()),
                ssh_args: vec!["-J".into(), "bastion".into()],
                ..HostSpec::new(
                    "build-1",
                    "ops@build1",
                    vec!["~/work".into(), "/srv/a b".into()]
                )
            },
            HostSpec::new("lab", "lab", vec!["/srv".into()]),
        ]
    );
    assert!(hosts_from_args(&[], &Config::default()).unwrap().is_empty());
}

/// Each mistake names the host and what is wrong, at the line its table
/// starts (or, for a key serde refuses, at the key).
#[test]
fn a_bad_host_table_is_refused_naming_the_host_and_the_line() {
    let cases = [
        (
            "[[host]]\nname = \"a b\"\nssh = \"x\"\nroots = [\"/r\"]\n",
            "config file c.toml, line 1, column 1: host name \"a b\": use letters, digits, '.', '_' and '-'",
        ),
        (
            "mouse = true\n[[host]]\nname = \"h\"\nssh = \"-oProxyCommand=id\"\nroots = [\"/r\"]\n",
            "config file c.toml, line 2, column 1: host h: ssh destination \"-oProxyCommand=id\" must not start with '-' or hold spaces or control characters",
        ),
        (
            "[[host]]\nname = \"h\"\nssh = \"x\"\n",
            "config file c.toml, line 1, column 1: host h: no root to watch (give at least one remote path)",
        ),
        (
            "[[host]]\nname = \"h\"\nssh = \"x\"\nroots = [\"/r\"]\n\n[[host]]\nname = \"h\"\nssh = \"y\"\nroots = [\"/s\"]\n",
            "config file c.toml, line 6, column 1: two hosts are named h",
        ),
        (
            "[[host]]\nname = \"h\"\nssh = \"x\"\nroots = [\"/r\"]\ncommand = \"\"\n",
            "config file c.toml, line 1, column 1: host h: command \"\" is empty or holds a control character",
        ),
    ];
    for (text, want) in cases {
        let e = parse(text, "c.toml").unwrap_err().to_string();
        assert_eq!(e, want, "{text}");
    }
    let e = parse(
        "[[host]]\nname = \"h\"\nssh = \"x\"\nroots = [\"/r\"]\nport = 22\n",
        "c.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "config file c.toml, line 5, column 1: unknown field `port`, expected one of"
        ),
        "{e}"
    );
    let e = parse("[[host]]\nname = \"h\"\nroots = [\"/r\"]\n", "c.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing field `ssh`"), "{e}");
    let e = parse(
        "[[host]]\nname = \"h\"\nssh = \"x\"\nroots = \"/r\"\n",
        "c.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("line 4"), "{e}");
}

#[test]
fn host_arguments_read_user_port_root_and_ipv6() {
    let cases = [
        ("b=build1:/srv/ws", ("b", "build1", None, "/srv/ws")),
        ("b=ops@build1:~/work", ("b", "ops@build1", None, "~/work")),
        (
            "b=ops@build1:2222:~/a:b",
            ("b", "ops@build1", Some(2222), "~/a:b"),
        ),
        ("v6=[::1]:/srv", ("v6", "::1", None, "/srv")),
        (
            "v6=u@[fe80::1]:2200:/srv",
            ("v6", "u@fe80::1", Some(2200), "/srv"),
        ),
        ("h=host:~", ("h", "host", None, "~")),
        ("h=host:/a b/it's", ("h", "host", None, "/a b/it's")),
    ];
    for (text, (name, destination, port, root)) in cases {
        assert_eq!(
            arg(text),
            HostArg {
                name: name.into(),
                destination: destination.into(),
                port,
                root: root.into(),
            },
            "{text}"
        );
    }
    for bad in [
        "build1:/srv",
        "b=build1",
        "b=build1:relative",
        "b=::1:/srv",
        "b=[::1:/srv",
        "b=:/srv",
        "b=@h:/srv",
        "b=h:0:/srv",
        "b=h:99999:/srv",
        "b=h:x:/srv",
        "a b=h:/srv",
        "b=-oProxyCommand=id:/srv",
        "=h:/srv",
    ] {
        assert!(parse_host_arg(bad).is_err(), "{bad}");
    }
    assert_eq!(
        parse_host_arg("b=h:x:/srv").unwrap_err(),
        "`b=h:x:/srv`: `x` is not a port (1-65535)"
    );
    assert!(
        parse_host_arg("a b=h:/srv")
            .unwrap_err()
            .contains("host name \"a b\"")
    );
}

/// The same NAME again adds a root; another destination under it is a
/// mistake; a `--host` replaces the config's host of its name in place:
/// where to look, not how to get there (`command` stays).
#[test]
fn command_line_hosts_add_roots_and_replace_config_hosts() {
    let c = parse(
        "[[host]]\nname = \"a\"\nssh = \"conf-a\"\nroots = [\"/ca\"]\ncommand = \"/opt/loopdeck\"\n\n[[host]]\nname = \"b\"\nssh = \"conf-b\"\nroots = [\"/cb\"]\n",
        "c.toml",
    )
    .unwrap();
    let args = [
        arg("c=cli-c:/1"),
        arg("a=cli-a:2200:/2"),
        arg("c=cli-c:/3"),
        arg("c=cli-c:/1"),
    ];
    let mut a = HostSpec::new("a", "cli-a", vec!["/2".into()]);
    a.port = Some(2200);
    a.command = Some("/opt/loopdeck".into());
    assert_eq!(
        hosts_from_args(&args, &c).unwrap(),
        vec![
            a,
            HostSpec::new("b", "conf-b", vec!["/cb".into()]),
            HostSpec::new("c", "cli-c", vec!["/1".into(), "/3".into()]),
        ]
    );
    let e = hosts_from_args(&[arg("c=x:/1"), arg("c=y:/2")], &c).unwrap_err();
    assert_eq!(
        e,
        "--host c is given for x and for y: give the same NAME again only to add a root there"
    );
    let e = hosts_from_args(&[arg("c=x:/1"), arg("c=x:22:/2")], &c).unwrap_err();
    assert!(e.contains("for x and for x:22"), "{e}");
}
