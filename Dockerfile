# SPDX-License-Identifier: BSD-2-Clause
# The profconv image: Debian, profconv installed from the Debian
# packages this tree builds, run as the non-root user "profconv" with the
# program as entry point.
#
#   docker build -t profconv .
#   docker run --rm -v "$PWD:/work" -w /work profconv perf.data -o profile.json
#
# The build stage runs scripts/container-build.sh (the README's
# scripts/setup.sh, then cpack), which tests/container_test.sh runs outside
# Docker.  The last stage installs the packages with apt-get, which brings
# the runtime libraries they depend on and nothing of the build.
# Debian 12, the release the tree is built and tested on (the machine
# tests/container_test.sh runs the build steps on); another release with
# --build-arg DEBIAN=stable-slim, once its libdwarf-dev builds the tree.
ARG DEBIAN=bookworm-slim

FROM debian:${DEBIAN} AS build
COPY . /src
RUN sh /src/scripts/container-build.sh /out

FROM debian:${DEBIAN}
COPY --from=build /out/ /tmp/debs/
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/debs/profconv_*.deb && rm -rf /var/lib/apt/lists/* /tmp/debs && useradd --create-home --uid 10001 --shell /bin/sh profconv
USER profconv
WORKDIR /home/profconv
ENTRYPOINT ["profconv"]
CMD ["--help"]
