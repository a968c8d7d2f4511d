"""Commands on whole workspaces: workspace copy, team init."""

from __future__ import annotations

import argparse

from geo.cli.common import Commands
from geo.store import copy_workspace, holds_workspace, open_workspace


def add_workspace(commands: Commands) -> Commands:
    """`workspace copy`: a whole workspace, GeoPackage <-> PostGIS; its actions."""
    stores = commands.add_parser(
        "workspace", help="copy a whole workspace, GeoPackage <-> PostGIS (postgresql:// URL)"
    )
    store_commands = stores.add_subparsers(required=True, metavar="ACTION")
    copy = store_commands.add_parser(
        "copy", help="copy every layer and the change log; a round trip compares equal"
    )
    copy.add_argument("source", help="a GeoPackage path or a postgresql:// URL")
    copy.add_argument("target", help="a GeoPackage path or a postgresql:// URL")
    kept = copy.add_mutually_exclusive_group()
    kept.add_argument(
        "--replace", action="store_true", help="overwrite a target that holds a workspace"
    )
    kept.add_argument(
        "--if-missing", action="store_true", help="do nothing when the target holds a workspace"
    )
    copy.set_defaults(command=_copy_workspace)
    return store_commands


def add_team(commands: Commands) -> Commands:
    """`team init`: the roles a PostGIS workspace's database enforces; its actions."""
    team = commands.add_parser(
        "team", help="roles a PostGIS workspace's database enforces (viewer, editor, admin)"
    )
    team_commands = team.add_subparsers(required=True, metavar="ACTION")
    init = team_commands.add_parser(
        "init",
        help="create the roles corridor_viewer, corridor_editor and corridor_admin, grant them "
        "on the workspace, and add people to them (run again to add more)",
    )
    init.add_argument("url", help="the PostGIS workspace, a postgresql:// URL")
    for role in ("viewer", "editor", "admin"):
        init.add_argument(
            f"--{role}", action="append", default=[], metavar="LOGIN",
            help=f"a login role to make a {role} (created without a password where missing)",
        )  # fmt: skip
    init.set_defaults(command=_team_init)
    return team_commands


def _copy_workspace(args: argparse.Namespace) -> int:
    shown = open_workspace(args.target).label
    if args.if_missing and holds_workspace(args.target):
        print(f"{shown}: holds a workspace already; left as it is")
        return 0
    copied = copy_workspace(args.source, args.target, replace=args.replace)
    print(f"{shown}: {len(copied)} layers copied")
    for line in copied:
        print(f"  {line}")
    return 0


def _team_init(args: argparse.Namespace) -> int:
    from geo.store import team

    members = team.Members(viewers=args.viewer, editors=args.editor, admins=args.admin)
    for line in team.init(args.url, members):
        print(line)
    return 0
