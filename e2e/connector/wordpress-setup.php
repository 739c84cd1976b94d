<?php
// Installs a fresh WordPress on an empty database and prints an application password for the REST API as
// JSON ({"user": ..., "app_password": ...}). Usage: php setup.php <site-url>. Debian's wp-config.php picks
// /etc/wordpress/config-<host>.php from HTTP_HOST (wordpress-site.ts writes it).
$url = $argv[1];
$_SERVER['HTTP_HOST'] = parse_url($url, PHP_URL_HOST);
$_SERVER['REQUEST_URI'] = '/';
define('WP_INSTALLING', true);
require_once '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
wp_install('Connector test site', 'editor', 'editor@example.com', true, '', 'editor-password-e2e');
update_option('siteurl', $url);
update_option('home', $url);
[$password] = WP_Application_Passwords::create_new_application_password(1, ['name' => 'site-connector-e2e']);
echo json_encode(['user' => 'editor', 'app_password' => $password]), "\n";
