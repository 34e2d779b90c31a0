#!/usr/bin/perl
# A harvest with Debian's HTTP::OAI (libhttp-oai-perl), driven by test/repository/oai/harvester.test.ts.
# Usage: harvest.pl <baseURL> <auth> <mode> <verb> [name=value ...]
#   auth: token:<access token> | basic:<user>:<password> | none
#   mode: resume (the harvester follows resumption tokens itself, records gathered by onRecord)
#         pages  (one request per page, following tokens here, to report completeListSize and cursor)
#         force  (one request sent as given, even when HTTP::OAI thinks it illegal: for protocol errors)
# Prints one JSON object: {http, errors:[{code,message}], items:[...], pages:[...], identify:{...}}.
# Without arguments it serves harvests one after another: each line on stdin a JSON array of the arguments
# above, each answer one line of JSON ({fatal: message} when the harvest died), so a test file starts Perl
# and loads HTTP::OAI once (~0.15 s a start) rather than once per harvest. Each harvest has a harvester of
# its own, as a separate run would.
use strict;
use warnings;
use HTTP::OAI;
use JSON::PP;
use MIME::Base64;

my $dc = 'http://purl.org/dc/elements/1.1/';
my $json = JSON::PP->new->canonical;

if (@ARGV) {
  print $json->encode(harvest(@ARGV)), "\n";
} else {
  $| = 1;
  while (my $line = <STDIN>) {
    my $answer = eval { harvest(@{ $json->decode($line) }) } || { fatal => "$@" };
    print $json->encode($answer), "\n";
  }
}

sub item_of {
  my ($it) = @_;
  if ($it->isa('HTTP::OAI::Set')) {
    return { setSpec => $it->setSpec, setName => $it->setName };
  }
  my $header = $it->isa('HTTP::OAI::Record') ? $it->header : $it;
  my %out = (
    identifier => $header->identifier,
    datestamp => $header->datestamp,
    deleted => ($header->is_deleted ? JSON::PP::true : JSON::PP::false),
    setSpecs => [ $header->setSpec ],
  );
  if ($it->isa('HTTP::OAI::Record') && $it->metadata) {
    my $xc = XML::LibXML::XPathContext->new($it->metadata->dom);
    $xc->registerNs(dc => $dc);
    $out{titles} = [ map { $_->textContent } $xc->findnodes('.//dc:title') ];
  }
  return \%out;
}

sub errors_of {
  my ($r) = @_;
  return [] unless $r->can('errors');
  return [ map { { code => $_->code, message => $_->message } } $r->errors ];
}

sub harvest {
  my ($base, $auth, $mode, $verb, @pairs) = @_;
  my %args = map { my ($k, $v) = split /=/, $_, 2; ($k => $v) } @pairs;

  my $h = HTTP::OAI::Harvester->new(baseURL => $base, resume => ($mode eq 'resume' ? 1 : 0));
  if ($auth =~ /^token:(.*)$/) {
    $h->default_header('Preservica-Access-Token' => $1);
  } elsif ($auth =~ /^basic:([^:]*):(.*)$/) {
    $h->default_header('Authorization' => 'Basic ' . encode_base64("$1:$2", ''));
  }

  my @items;
  my @pages;
  my %result;
  my $r;
  if ($mode eq 'force') {
    $r = $h->_oai(force => 1, verb => $verb, %args);
  } elsif ($mode eq 'resume') {
    $r = $h->$verb(%args, onRecord => sub { push @items, item_of($_[0]) });
  } else {
    my %req = %args;
    while (1) {
      $r = $h->$verb(%req);
      last if $r->is_error || errors_of($r)->[0];
      my $n = 0;
      while (my $it = $r->next) { push @items, item_of($it); $n++ }
      my $t = $r->resumptionToken;
      push @pages, {
        count => $n,
        token => ($t ? $t->resumptionToken : undef),
        completeListSize => ($t ? $t->completeListSize : undef),
        cursor => ($t ? $t->cursor : undef),
      };
      last if !$t || !$t->resumptionToken;
      %req = (resumptionToken => $t->resumptionToken);
    }
  }

  $result{http} = $r->code;
  $result{httpMessage} = $r->message;
  $result{errors} = errors_of($r);
  if ($verb eq 'Identify' && !$r->is_error && !errors_of($r)->[0]) {
    $result{identify} = {
      repositoryName => $r->repositoryName,
      granularity => $r->granularity,
      deletedRecord => $r->deletedRecord,
      earliestDatestamp => $r->earliestDatestamp,
      baseURL => $r->baseURL . '',
      adminEmail => [ $r->adminEmail ],
    };
  }
  if ($verb eq 'ListMetadataFormats' && !errors_of($r)->[0]) {
    while (my $f = $r->next) { push @items, { metadataPrefix => $f->metadataPrefix } }
  }
  if ($verb eq 'GetRecord' && !errors_of($r)->[0]) {
    while (my $rec = $r->next) { push @items, item_of($rec) }
  }
  if ($mode eq 'force' && $verb =~ /^List/ && !errors_of($r)->[0]) {
    while (my $it = $r->next) { push @items, item_of($it) }
  }
  $result{items} = \@items;
  $result{pages} = \@pages;
  return \%result;
}

