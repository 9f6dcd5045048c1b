#!/bin/sh
# Terminus installer.
#
#   curl -fsSL https://raw.githubusercontent.com/crenshawdev/terminus/main/install.sh | sh
#   curl -fsSL https://raw.githubusercontent.com/crenshawdev/terminus/main/install.sh | sh -s -- https://<source>
#
# It downloads terminus-<os>-<arch>.manifest and its .sig, verifies the signature against
# the key pinned on the release_key line below, then downloads the binary, checks it against
# the manifest, stores it under ~/.local/lib/crenshawdev/terminus/versions/<version>/, links
# ~/.local/bin/terminus to it and runs `terminus install`, exiting with its status.
# docs/design/release.md describes every check. Every refusal prints `terminus: <reason>`
# on stderr and exits 1 with nothing installed.
#
# Above the brace group at the end there are only options, variables and functions; the
# shell reads the whole group before it runs any of it, so a download cut off part way
# runs nothing.

set -u

release_key='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILPfq2/BxcdMxsad9qg1j2IzOBrtklgpltk5tLtX4GSh'
signer_identity='crenshawdev-release'
signature_namespace='terminus-release'
default_source='https://github.com/crenshawdev/terminus/releases/latest/download'
marker='terminus-build-marker:crenshawdev/terminus'
u64_max='18446744073709551615'
tmp=''

die() {
  printf 'terminus: %s\n' "$1" >&2
  exit 1
}

cleanup() {
  if [ -n "$tmp" ]; then
    rm -rf "$tmp"
  fi
}

# valid_version <text>: major.minor.patch, digits only, no leading zeros, each part a u64.
# Compared as text (length, then digit by digit), never as shell arithmetic.
valid_version() {
  vv_rest=$1
  case $vv_rest in
    '' | *[!0-9.]* | .* | *. | *..*) return 1 ;;
  esac
  vv_major=${vv_rest%%.*}
  vv_rest=${vv_rest#*.}
  case $vv_rest in
    *.*) ;;
    *) return 1 ;;
  esac
  vv_minor=${vv_rest%%.*}
  vv_patch=${vv_rest#*.}
  case $vv_patch in
    *.*) return 1 ;;
  esac
  for vv_part in "$vv_major" "$vv_minor" "$vv_patch"; do
    case $vv_part in
      '') return 1 ;;
      0) continue ;;
      0*) return 1 ;;
    esac
    if [ "${#vv_part}" -lt "${#u64_max}" ]; then
      continue
    fi
    if [ "${#vv_part}" -gt "${#u64_max}" ]; then
      return 1
    fi
    vv_a=$vv_part
    vv_b=$u64_max
    while [ -n "$vv_a" ]; do
      vv_da=${vv_a%"${vv_a#?}"}
      vv_db=${vv_b%"${vv_b#?}"}
      if [ "$vv_da" != "$vv_db" ]; then
        case 0123456789 in
          *"$vv_da"*"$vv_db"*) break ;;
          *) return 1 ;;
        esac
      fi
      vv_a=${vv_a#?}
      vv_b=${vv_b#?}
    done
  done
  return 0
}

# digest <file>: the file's SHA-256 as lowercase hex, from sha256sum or shasum -a 256.
digest() {
  if command -v sha256sum >/dev/null 2>&1; then
    dg_out=$(sha256sum <"$1") || return 1
  elif command -v shasum >/dev/null 2>&1; then
    dg_out=$(shasum -a 256 <"$1") || return 1
  else
    return 1
  fi
  printf '%s\n' "${dg_out%%[!0-9a-f]*}"
}

# check_manifest <file>: exactly "version X.Y.Z\nsha256 <64 lowercase hex>\n". On success
# sets manifest_version and manifest_sha256.
check_manifest() {
  manifest_version=''
  manifest_sha256=''
  # only the bytes the two lines can hold: lowercase letters, digits, '.', ' ' and newline
  cm_other=$(LC_ALL=C tr -d 'a-z0-9. \n' <"$1" | wc -c) || return 1
  [ "$cm_other" -eq 0 ] || return 1
  cm_lines=$(wc -l <"$1") || return 1
  [ "$cm_lines" -eq 2 ] || return 1
  # the last byte is a newline, so nothing follows line 2
  [ -z "$(tail -c 1 "$1")" ] || return 1
  cm_line1=$(sed -n 1p "$1")
  cm_line2=$(sed -n 2p "$1")
  case $cm_line1 in
    'version '*) cm_version=${cm_line1#version } ;;
    *) return 1 ;;
  esac
  valid_version "$cm_version" || return 1
  case $cm_line2 in
    'sha256 '*) cm_sha=${cm_line2#sha256 } ;;
    *) return 1 ;;
  esac
  [ "${#cm_sha}" -eq 64 ] || return 1
  case $cm_sha in
    *[!0-9a-f]*) return 1 ;;
  esac
  manifest_version=$cm_version
  manifest_sha256=$cm_sha
  return 0
}

# is_terminus_build <file>: a regular file that carries the build marker.
is_terminus_build() {
  [ -f "$1" ] && LC_ALL=C grep -q -F -e "$marker" "$1" 2>/dev/null
}

# check_link: what sits at ~/.local/bin/terminus may be replaced by the link.
check_link() {
  if [ -L "$link" ]; then
    cl_target=$(readlink "$link") || die "$link is a link that cannot be read"
    if [ -d "$link" ]; then
      die "$link is a link to a folder; move it away and run the installer again"
    fi
    if [ ! -e "$link" ]; then
      case $cl_target in
        "$versions"/*) return 0 ;;
      esac
      die "$link is a link to nothing ($cl_target) outside $versions; remove it and run the installer again"
    fi
    case $cl_target in
      "$versions"/*/terminus) [ -f "$link" ] && return 0 ;;
    esac
    if [ -f "$link" ]; then
      is_terminus_build "$link" && return 0
      die "$link links to $cl_target, which is not a Terminus build; move it away and run the installer again"
    fi
    die "$link links to $cl_target, which is not a file; move it away and run the installer again"
  fi
  if [ -d "$link" ]; then
    die "$link is a folder; move it away and run the installer again"
  fi
  if [ -f "$link" ]; then
    is_terminus_build "$link" && return 0
    die "$link is a file that is not a Terminus build; move it away and run the installer again"
  fi
  if [ -e "$link" ]; then
    die "$link is neither a file nor a link; move it away and run the installer again"
  fi
  return 0
}

fetch() {
  curl --proto '=https' --tlsv1.2 -fsSL -o "$2" "$source/$1"
}

{
  trap cleanup EXIT
  trap 'exit 1' HUP INT TERM

  # 1. The source.
  if [ "$#" -gt 1 ]; then
    die "more than one argument; the only one taken is an https:// source"
  fi
  if [ "$#" -eq 1 ]; then
    case $1 in
      https://?*) source=${1%/} ;;
      *) die "the source must start with https:// ($1)" ;;
    esac
  else
    source=$default_source
  fi

  # 2. TERMINUS_BIN_DIR.
  if [ -n "${TERMINUS_BIN_DIR:-}" ]; then
    die "TERMINUS_BIN_DIR is set ($TERMINUS_BIN_DIR); terminus install would wire Claude Code to that folder while this script links ~/.local/bin/terminus. Unset it and run the installer again"
  fi

  # 3. HOME.
  if [ -z "${HOME:-}" ]; then
    die "HOME is not set"
  fi
  case $HOME in
    /*) ;;
    *) die "HOME is not an absolute path ($HOME)" ;;
  esac
  case /$HOME/ in
    */../*) die "HOME has a '..' part ($HOME)" ;;
  esac
  home_copy=$HOME
  if [ "$(printf '%s' "$home_copy" | od -An -tx1)" != "$(awk 'BEGIN { printf "%s", ENVIRON["HOME"] }' | od -An -tx1)" ]; then
    die "the shell changed the bytes of HOME on copying it; run the installer with a UTF-8 locale, e.g. LC_ALL=C.UTF-8"
  fi
  if [ "$(printf '%s' "$HOME" | LC_ALL=C tr -d '\001-\177' | wc -c)" -ne 0 ]; then
    if ! command -v iconv >/dev/null 2>&1; then
      die "HOME holds bytes outside ASCII and there is no iconv to check that they are UTF-8"
    fi
    if ! printf '%s' "$HOME" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; then
      die "HOME is not valid UTF-8"
    fi
  fi

  # 4. What sits at ~/.local/bin/terminus.
  bin_dir=$HOME/.local/bin
  link=$bin_dir/terminus
  versions=$HOME/.local/lib/crenshawdev/terminus/versions
  check_link

  # 5. The OS and architecture.
  os_name=$(uname -s 2>/dev/null) || os_name=''
  arch_name=$(uname -m 2>/dev/null) || arch_name=''
  case $os_name in
    Linux) os=linux ;;
    Darwin) os=macos ;;
    *) die "this system ($os_name) is not supported; Terminus runs on Linux and macOS" ;;
  esac
  case $arch_name in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) die "this architecture ($arch_name) is not supported; Terminus runs on x86_64 and aarch64" ;;
  esac
  name=terminus-$os-$arch

  # 6. ssh-keygen.
  if ! command -v ssh-keygen >/dev/null 2>&1; then
    die "ssh-keygen is not on PATH, and it checks the release's signature; install openssh-client (Debian, Ubuntu), openssh-clients (Fedora) or openssh (Arch)"
  fi
  if ! command -v curl >/dev/null 2>&1; then
    die "curl is not on PATH, and it downloads the release"
  fi

  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t terminus) || die "no temporary folder could be made"

  # 7. The manifest and its signature.
  fetch "$name.manifest" "$tmp/$name.manifest" ||
    die "the download of $source/$name.manifest failed"
  fetch "$name.manifest.sig" "$tmp/$name.manifest.sig" ||
    die "the download of $source/$name.manifest.sig failed"

  # 8. The signature, against release_key alone.
  printf '%s %s\n' "$signer_identity" "$release_key" >"$tmp/allowed_signers" ||
    die "the allowed-signers file could not be written"
  if ! ssh-keygen -Y verify -f "$tmp/allowed_signers" -I "$signer_identity" \
    -n "$signature_namespace" -s "$tmp/$name.manifest.sig" <"$tmp/$name.manifest" >/dev/null 2>&1; then
    die "the signature on $name.manifest does not verify against the pinned key; nothing was installed"
  fi

  # 9. The binary, only now.
  fetch "$name" "$tmp/$name" || die "the download of $source/$name failed"

  # 10. The manifest's two lines.
  if ! check_manifest "$tmp/$name.manifest"; then
    die "$name.manifest is not exactly 'version <major.minor.patch>' and 'sha256 <64 lowercase hex digits>', each ending in a newline"
  fi

  # 11. The binary's SHA-256.
  got=$(digest "$tmp/$name") || die "neither sha256sum nor shasum is on PATH, and one checks the binary"
  if [ "$got" != "$manifest_sha256" ]; then
    die "the SHA-256 of $name ($got) is not the one its manifest names ($manifest_sha256)"
  fi

  # Store the binary under its version.
  version=$manifest_version
  dest_dir=$versions/$version
  dest=$dest_dir/terminus
  if [ -L "$dest" ]; then
    die "$dest is a link; remove it and run the installer again"
  fi
  if [ -e "$dest" ] && [ ! -f "$dest" ]; then
    die "$dest is not a regular file; remove it and run the installer again"
  fi
  if [ -f "$dest" ] && [ "$(digest "$dest")" = "$got" ]; then
    if [ ! -x "$dest" ]; then
      die "$dest is this binary without execute permission; remove it and run the installer again"
    fi
  else
    # 0755 folders whatever the umask: these hold the code the hooks run.
    (umask 022 && mkdir -p "$dest_dir") || die "$dest_dir could not be created"
    cp "$tmp/$name" "$dest_dir/.terminus.$$" || die "the binary could not be written to $dest_dir"
    chmod 755 "$dest_dir/.terminus.$$" || die "the binary in $dest_dir could not be made executable"
    mv -f "$dest_dir/.terminus.$$" "$dest" || die "the binary could not be stored as $dest"
  fi

  # Check the link path again, then point the link at the new binary.
  check_link
  (umask 022 && mkdir -p "$bin_dir") || die "$bin_dir could not be created"
  rm -f "$bin_dir/.terminus.$$"
  ln -s "$dest" "$bin_dir/.terminus.$$" || die "the link could not be made in $bin_dir"
  mv -f "$bin_dir/.terminus.$$" "$link" || die "$link could not be pointed at $dest"

  printf 'terminus %s placed at %s\n' "$version" "$dest"
  printf '%s -> %s\n' "$link" "$dest"
  printf 'versions held in %s:\n' "$versions"
  for held in "$versions"/*/terminus; do
    [ -f "$held" ] || continue
    held=${held%/terminus}
    printf '  %s\n' "${held##*/}"
  done

  cleanup
  tmp=''
  "$link" install
  exit $?
}
