#!/bin/sh
# Signs a drafted Terminus release on the owner's machine, with a key CI never holds.
#
#   sh scripts/sign-release.sh v<X.Y.Z>
#
# The private key is read from TERMINUS_SIGNING_KEY (default ~/.ssh/crenshawdev-release);
# its public half must be install.sh's release_key line, which this script reads and keeps
# no copy of. valid_version, digest and check_manifest below are copies of install.sh's, and
# tests/install_sh_test.ts holds their text equal, so this refuses what the installer refuses.
# It signs only a draft, only after every binary matches its manifest and carries an
# attestation from release.yml for this tag, and publishes only when all four signatures
# verify. docs/design/release.md describes each step.

set -u

repo='crenshawdev/terminus'
workflow='.github/workflows/release.yml'
targets='linux-x86_64 linux-aarch64 macos-x86_64 macos-aarch64'
signer_identity='crenshawdev-release'
signature_namespace='terminus-release'
u64_max='18446744073709551615'
tmp=''

die() {
  printf 'sign-release: %s\n' "$1" >&2
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

{
  trap cleanup EXIT
  trap 'exit 1' HUP INT TERM

  if [ "$#" -ne 1 ]; then
    die "usage: sh scripts/sign-release.sh v<X.Y.Z>"
  fi
  tag=$1

  # 1. The tag starts with v.
  case $tag in
    v*) ;;
    *) die "the tag must start with v ($tag)" ;;
  esac

  # 2. The public key: install.sh's one release_key= line.
  here=$(dirname "$0")
  install_sh=$here/../install.sh
  [ -f "$install_sh" ] || die "$install_sh is not there to read the release key from"
  key_lines=$(grep -c '^release_key=' "$install_sh")
  [ "$key_lines" = 1 ] || die "$install_sh has $key_lines release_key= lines, not one"
  release_key=$(sed -n "s/^release_key='\(.*\)'\$/\1/p" "$install_sh")
  case $release_key in
    'ssh-ed25519 '?*) ;;
    *) die "the release_key line in $install_sh is not one quoted ssh-ed25519 key" ;;
  esac

  # 3. The version, by install.sh's own rule.
  version=${tag#v}
  valid_version "$version" || die "$tag is not v<major.minor.patch> as install.sh accepts it"

  command -v gh >/dev/null 2>&1 || die "gh is not on PATH"
  command -v ssh-keygen >/dev/null 2>&1 || die "ssh-keygen is not on PATH"
  signing_key=${TERMINUS_SIGNING_KEY:-$HOME/.ssh/crenshawdev-release}
  [ -f "$signing_key" ] || die "the signing key $signing_key is not there (TERMINUS_SIGNING_KEY names it)"
  key_public=$(ssh-keygen -y -f "$signing_key") || die "the public half of $signing_key could not be read"
  set -- $key_public
  [ "$1 $2" = "$release_key" ] || die "$signing_key is not the key install.sh pins"

  # 4. Only a draft.
  is_draft=$(gh release view "$tag" --repo "$repo" --json isDraft --jq .isDraft) ||
    die "release $tag could not be read"
  [ "$is_draft" = true ] || die "release $tag is not a draft; a published release is never re-signed"

  # 5. The draft holds all four binaries and all four manifests.
  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t sign-release) || die "no temporary folder could be made"
  set --
  for t in $targets; do
    set -- "$@" --pattern "terminus-$t" --pattern "terminus-$t.manifest"
  done
  gh release download "$tag" --repo "$repo" --dir "$tmp" "$@" ||
    die "the draft $tag could not be downloaded"
  for t in $targets; do
    [ -f "$tmp/terminus-$t" ] || die "the draft has no terminus-$t"
    [ -f "$tmp/terminus-$t.manifest" ] || die "the draft has no terminus-$t.manifest"
  done

  # 6. Every manifest is the two lines with this version, and names its binary's SHA-256.
  for t in $targets; do
    check_manifest "$tmp/terminus-$t.manifest" ||
      die "terminus-$t.manifest is not exactly the two lines install.sh accepts"
    [ "$manifest_version" = "$version" ] ||
      die "terminus-$t.manifest names version $manifest_version, not $version"
    got=$(digest "$tmp/terminus-$t") || die "neither sha256sum nor shasum is on PATH"
    [ "$got" = "$manifest_sha256" ] ||
      die "terminus-$t does not match its manifest ($got, manifest $manifest_sha256)"
  done

  # 7. Every binary was built by release.yml, for this tag, on a GitHub-hosted runner.
  for t in $targets; do
    gh attestation verify "$tmp/terminus-$t" --repo "$repo" \
      --signer-workflow "$repo/$workflow" --source-ref "refs/tags/$tag" \
      --deny-self-hosted-runners >/dev/null ||
      die "terminus-$t has no attestation from $workflow for $tag on a GitHub-hosted runner"
  done

  # 8. Sign one manifest at a time, verifying each as install.sh does before the next.
  printf '%s %s\n' "$signer_identity" "$release_key" >"$tmp/allowed_signers" ||
    die "the allowed-signers file could not be written"
  for t in $targets; do
    name=terminus-$t
    rm -f "$tmp/$name.manifest.sig"
    ssh-keygen -Y sign -f "$signing_key" -n "$signature_namespace" "$tmp/$name.manifest" ||
      die "$name.manifest could not be signed"
    if ! ssh-keygen -Y verify -f "$tmp/allowed_signers" -I "$signer_identity" \
      -n "$signature_namespace" -s "$tmp/$name.manifest.sig" <"$tmp/$name.manifest" >/dev/null 2>&1; then
      die "the signature on $name.manifest does not verify; nothing was uploaded"
    fi
  done

  # 9. Upload the four signatures, then publish as the latest release.
  set --
  for t in $targets; do
    set -- "$@" "$tmp/terminus-$t.manifest.sig"
  done
  gh release upload "$tag" --repo "$repo" "$@" ||
    die "the signatures could not be uploaded; $tag stays a draft"
  gh release edit "$tag" --repo "$repo" --draft=false --latest ||
    die "$tag could not be published; it stays a draft"
  printf 'signed and published %s\n' "$tag"
}
