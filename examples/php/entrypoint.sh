#!/bin/sh
# Entrypoint of the PHP example's image: PHP-FPM (daemonized, its static
# pool sized by BOX_WEB_THREAD), then nginx in the foreground.
set -eu
case "${BOX_WEB_THREAD:-}" in
'' | *[!0-9]* | 0) echo "entrypoint: BOX_WEB_THREAD=${BOX_WEB_THREAD:-} is not a whole number >= 1" >&2 && exit 2 ;;
esac
php-fpm8.2 -y /app/php-fpm.conf -c /app/php.ini
exec nginx -c /app/nginx.conf
